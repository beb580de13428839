import { SkillInvalidError, SkillTooLargeError, SkillTooManyFilesError } from '../errors/index.js';
import { canonicalEntryPath } from './skill-path.js';

/** Limits applied while a skill is read from a folder or an archive, before anything is stored. */
export interface SkillLimits {
  /**
   * Total bytes of file content, counted as bytes arrive (never trusted from a header).
   * @default 10485760 (10 MiB)
   */
  maxBytes: number;
  /**
   * Entries (files and directories) in the source.
   * @default 1000
   */
  maxFiles: number;
}

export const defaultSkillLimits: Readonly<SkillLimits> = Object.freeze({
  maxBytes: 10 * 1024 * 1024,
  maxFiles: 1000,
});

/** One file of a skill: its canonical relative path, the executable bit and its bytes. */
export interface SkillFile {
  path: string;
  executable: boolean;
  content: Buffer;
}

export const manifestPath = 'SKILL.md';

/**
 * Gathers the entries of one source (folder walk, tar or zip) and enforces the limits as they
 * come, so a reader can stop at the first refusal without having buffered a bomb.
 */
export class SkillCollector {
  readonly #limits: SkillLimits;
  readonly #files = new Map<string, SkillFile>();
  readonly #directories = new Set<string>();
  #entries = 0;
  #bytes = 0;

  constructor(limits: SkillLimits) {
    this.#limits = limits;
  }

  /** Counts one entry against `maxFiles`; call it before reading the entry's bytes. */
  countEntry(): void {
    this.#entries += 1;
    if (this.#entries > this.#limits.maxFiles) {
      throw new SkillTooManyFilesError(`Skill has more than ${this.#limits.maxFiles} entries`, {
        maxFiles: this.#limits.maxFiles,
      });
    }
  }

  /** Counts bytes as they are read; refuses as soon as the total passes `maxBytes`. */
  countBytes(length: number): void {
    this.#bytes += length;
    if (this.#bytes > this.#limits.maxBytes) {
      throw new SkillTooLargeError(`Skill content exceeds ${this.#limits.maxBytes} bytes`, {
        maxBytes: this.#limits.maxBytes,
      });
    }
  }

  addDirectory(rawPath: string): void {
    const path = canonicalEntryPath(rawPath);
    if (path !== '') this.#directories.add(path);
  }

  /** Adds a file whose bytes were already counted with `countBytes`. */
  addFile(file: { rawPath: string; executable: boolean; content: Buffer }): void {
    const path = canonicalEntryPath(file.rawPath);
    if (path === '')
      throw new SkillInvalidError('A skill entry names the root as a file', { path: file.rawPath });
    // tar lets a later entry override an earlier one; a skill is refused instead of guessing which wins.
    if (this.#files.has(path)) throw new SkillInvalidError(`Skill entry ${path} appears twice`, { path });
    this.#files.set(path, { path, executable: file.executable, content: file.content });
  }

  /**
   * The collected files, checked: no path is both a file and a directory, and `SKILL.md` sits at
   * the root. With `stripSingleRoot`, an archive that wraps everything in one top folder
   * (`zip -r my-skill.zip my-skill/`) is read as that folder.
   */
  finish(options: { stripSingleRoot: boolean }): SkillFile[] {
    for (const path of [...this.#files.keys(), ...this.#directories]) {
      const segments = path.split('/');
      for (let depth = 1; depth < segments.length; depth += 1) {
        const ancestor = segments.slice(0, depth).join('/');
        if (this.#files.has(ancestor)) {
          throw new SkillInvalidError(`Skill entry ${ancestor} is both a file and a directory`, {
            path: ancestor,
          });
        }
      }
      if (this.#directories.has(path) && this.#files.has(path)) {
        throw new SkillInvalidError(`Skill entry ${path} is both a file and a directory`, { path });
      }
    }
    let files = [...this.#files.values()];
    if (options.stripSingleRoot && !this.#files.has(manifestPath)) files = stripSingleRoot(files);
    if (!files.some((file) => file.path === manifestPath)) {
      throw new SkillInvalidError(`A skill needs a ${manifestPath} at its root`);
    }
    return files;
  }
}

function stripSingleRoot(files: SkillFile[]): SkillFile[] {
  const roots = new Set(files.map((file) => file.path.split('/')[0]));
  const [root] = roots;
  if (roots.size !== 1 || root === undefined || files.some((file) => file.path === root)) return files;
  const prefix = `${root}/`;
  return files.map((file) => ({ ...file, path: file.path.slice(prefix.length) }));
}
