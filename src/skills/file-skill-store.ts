import { randomUUID } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  InvalidInputError,
  NotFoundError,
  SkillCorruptError,
  SkillTargetExistsError,
} from '../errors/index.js';
import { digestOf, isSkillDigest, parseSkill, serializeSkill } from './canonical.js';
import type { SkillSource } from './read-skill-source.js';
import { defaultSkillLimits, manifestPath, type SkillFile, type SkillLimits } from './skill-collector.js';
import { parseSkillManifest } from './skill-manifest.js';
import type { Skill, SkillAddResult, SkillListEntry, SkillStore, SkillSummary } from './skill-store.js';

export interface FileSkillStoreOptions {
  /** Where blobs live, e.g. `<dataDir>/skills`. Created on the first `add`. */
  directory: string;
  /**
   * Limits for `add`.
   * @default { maxBytes: 10 MiB, maxFiles: 1000 }
   */
  limits?: Partial<SkillLimits>;
}

/** Temp files older than this are leftovers of a crashed `add`, never a live one. */
const staleTempMs = 60 * 60 * 1000;

/**
 * Skills as files: `<directory>/sha256/<hex>` holds the canonical bytes, so the blob hashes to its
 * own name. A blob is written to `<directory>/tmp/`, synced, then renamed into place, so a crash
 * leaves at worst a temp file, never a partial blob under a digest name.
 */
export class FileSkillStore implements SkillStore {
  readonly #directory: string;
  readonly #limits: SkillLimits;

  constructor(options: FileSkillStoreOptions) {
    this.#directory = options.directory;
    this.#limits = { ...defaultSkillLimits, ...options.limits };
  }

  async add(source: SkillSource): Promise<SkillAddResult> {
    // The archive readers (tar, yauzl) load only when a skill is added: a worker only reads skills.
    const { readSkillSource } = await import('./read-skill-source.js');
    const files = await readSkillSource({ source, limits: this.#limits });
    const manifest = parseSkillManifest(manifestOf(files));
    const blob = serializeSkill(files);
    const digest = digestOf(blob);
    const summary = summarize({ digest, name: manifest.name, description: manifest.description, files });
    if (await this.#holdsIntact(digest)) return { ...summary, created: false };
    await this.#writeBlob({ digest, blob });
    return { ...summary, created: true };
  }

  async get(digest: string): Promise<Skill> {
    const blob = await this.#readBlob(digest);
    if (digestOf(blob) !== digest) {
      throw new SkillCorruptError(`Stored skill ${digest} does not match its digest`, { digest });
    }
    try {
      const files = parseSkill(blob);
      const manifest = parseSkillManifest(manifestOf(files));
      return { digest, ...manifest, files, bytes: totalBytes(files) };
    } catch (error) {
      throw new SkillCorruptError(`Stored skill ${digest} is not a valid skill`, {
        digest,
        cause: String(error),
      });
    }
  }

  async list(): Promise<SkillListEntry[]> {
    const names = await readdir(this.#blobDirectory()).catch(ignoreMissing([]));
    const entries: SkillListEntry[] = [];
    for (const name of names) {
      const digest = `sha256:${name}`;
      if (!isSkillDigest(digest)) continue;
      try {
        entries.push({ state: 'ok', ...summarize(await this.get(digest)) });
      } catch (error) {
        if (error instanceof NotFoundError) continue; // removed while listing
        if (!(error instanceof SkillCorruptError)) throw error;
        entries.push({ state: 'corrupt', digest, reason: error.message });
      }
    }
    return entries.sort((left, right) => sortKey(left).localeCompare(sortKey(right)));
  }

  async remove(digest: string): Promise<boolean> {
    const path = this.#blobPath(digest);
    try {
      await unlink(path);
      return true;
    } catch (error) {
      return ignoreMissing(false)(error);
    }
  }

  async materialize(digest: string, targetDir: string): Promise<SkillSummary> {
    const skill = await this.get(digest);
    const targetIsEmptyDirectory = await emptyDirectoryOrAbsent(targetDir);
    await mkdir(dirname(targetDir), { recursive: true });
    const staging = await mkdtemp(join(dirname(targetDir), `.${basename(targetDir)}.partial-`));
    try {
      for (const file of skill.files) {
        const path = join(staging, ...file.path.split('/'));
        await mkdir(dirname(path), { recursive: true });
        await writeSynced({ path, bytes: file.content, mode: file.executable ? 0o755 : 0o644 });
      }
      await chmod(staging, 0o755); // mkdtemp makes it 0700; a skill folder is ordinary
      if (targetIsEmptyDirectory) await rmdir(targetDir);
      await rename(staging, targetDir);
    } catch (error) {
      await rm(staging, { recursive: true, force: true });
      // Another materialize (or anyone) filled the target between our check and the rename.
      if (hasCode(error, 'EEXIST') || hasCode(error, 'ENOTEMPTY')) throw targetExists(targetDir);
      throw error;
    }
    return summarize(skill);
  }

  #blobDirectory(): string {
    return join(this.#directory, 'sha256');
  }

  #blobPath(digest: string): string {
    if (!isSkillDigest(digest)) {
      throw new InvalidInputError(`Not a skill digest: ${JSON.stringify(digest)} (expected sha256:<64 hex>)`);
    }
    return join(this.#blobDirectory(), digest.slice('sha256:'.length));
  }

  async #readBlob(digest: string): Promise<Buffer> {
    try {
      return await readFile(this.#blobPath(digest));
    } catch (error) {
      if (isMissing(error)) throw new NotFoundError(`No stored skill ${digest}`, { digest });
      throw error;
    }
  }

  /** True when the blob exists and verifies; a damaged one is rewritten by the `add` that asks. */
  async #holdsIntact(digest: string): Promise<boolean> {
    try {
      return digestOf(await readFile(this.#blobPath(digest))) === digest;
    } catch (error) {
      return ignoreMissing(false)(error);
    }
  }

  async #writeBlob(options: { digest: string; blob: Buffer }): Promise<void> {
    const tempDirectory = join(this.#directory, 'tmp');
    await mkdir(tempDirectory, { recursive: true });
    await mkdir(this.#blobDirectory(), { recursive: true });
    await removeStaleTemps(tempDirectory);
    const temp = join(tempDirectory, `${randomUUID()}.partial`);
    try {
      await writeSynced({ path: temp, bytes: options.blob, mode: 0o444 });
      await rename(temp, this.#blobPath(options.digest));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(this.#blobDirectory());
  }
}

function manifestOf(files: SkillFile[]): Buffer {
  const manifest = files.find((file) => file.path === manifestPath);
  if (manifest === undefined) throw new Error(`${manifestPath} missing after collection`);
  return manifest.content;
}

function totalBytes(files: SkillFile[]): number {
  return files.reduce((sum, file) => sum + file.content.length, 0);
}

function summarize(skill: {
  digest: string;
  name: string;
  description: string;
  files: SkillFile[];
}): SkillSummary {
  const files = [...skill.files]
    .sort((left, right) => Buffer.compare(Buffer.from(left.path), Buffer.from(right.path)))
    .map((file) => ({ path: file.path, bytes: file.content.length, executable: file.executable }));
  return {
    digest: skill.digest,
    name: skill.name,
    description: skill.description,
    files,
    bytes: totalBytes(skill.files),
  };
}

function sortKey(entry: SkillListEntry): string {
  return entry.state === 'ok' ? `0 ${entry.name} ${entry.digest}` : `1 ${entry.digest}`;
}

function hasCode(error: unknown, code: string): boolean {
  return error instanceof Error && 'code' in error && error.code === code;
}

function isMissing(error: unknown): boolean {
  return hasCode(error, 'ENOENT');
}

function targetExists(targetDir: string): SkillTargetExistsError {
  return new SkillTargetExistsError(
    `Cannot materialize a skill into ${targetDir}: it exists and is not empty`,
    {
      targetDir,
    },
  );
}

function ignoreMissing<T>(fallback: T): (error: unknown) => T {
  return (error) => {
    if (isMissing(error)) return fallback;
    throw error;
  };
}

async function emptyDirectoryOrAbsent(path: string): Promise<boolean> {
  const stats = await lstat(path).catch(ignoreMissing(undefined));
  if (stats === undefined) return false;
  if (stats.isDirectory() && (await readdir(path)).length === 0) return true;
  throw targetExists(path);
}

async function writeSynced(options: { path: string; bytes: Buffer; mode: number }): Promise<void> {
  const handle = await open(options.path, 'wx', options.mode);
  try {
    await handle.writeFile(options.bytes);
    await handle.chmod(options.mode); // the umask must not decide the executable bit
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function removeStaleTemps(directory: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(directory)) {
    const path = join(directory, name);
    const stats = await stat(path).catch(ignoreMissing(undefined));
    if (stats !== undefined && now - stats.mtimeMs > staleTempMs) await rm(path, { force: true });
  }
}
