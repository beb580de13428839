import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { NotFoundError, SkillArchiveError } from '../errors/index.js';
import { readSkillFolder } from './read-folder.js';
import { readSkillTar } from './read-tar.js';
import { readSkillZip } from './read-zip.js';
import { SkillCollector, type SkillFile, type SkillLimits } from './skill-collector.js';

/** A folder or archive path, or the bytes of an archive (an HTTP upload, say). */
export type SkillSource = string | Uint8Array;

type ArchiveKind = 'zip' | 'tar' | 'tar.gz';

/**
 * Reads a skill from a folder, a zip, a tar or a gzipped tar into its files, refusing anything
 * unsafe or over the limits. The archive kind is read from the bytes, not the file name.
 */
export async function readSkillSource(options: {
  source: SkillSource;
  limits: SkillLimits;
}): Promise<SkillFile[]> {
  const { source, limits } = options;
  const collector = new SkillCollector(limits);
  if (typeof source !== 'string') {
    const bytes = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
    const kind = archiveKind(bytes);
    if (kind === 'zip') await readSkillZip({ source: bytes, collector });
    else await readSkillTar({ input: Readable.from([bytes]), gzipped: kind === 'tar.gz', collector, limits });
    return collector.finish({ stripSingleRoot: true });
  }
  const stats = await stat(source).catch((error: unknown) => {
    throw new NotFoundError(`No skill folder or archive at ${source}`, {
      path: source,
      cause: String(error),
    });
  });
  if (stats.isDirectory()) {
    await readSkillFolder(source, collector);
    return collector.finish({ stripSingleRoot: false });
  }
  const kind = archiveKind(await readHead(source));
  if (kind === 'zip') await readSkillZip({ source, collector });
  else await readSkillTar({ input: createReadStream(source), gzipped: kind === 'tar.gz', collector, limits });
  return collector.finish({ stripSingleRoot: true });
}

async function readHead(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function archiveKind(head: Buffer): ArchiveKind {
  if (head[0] === 0x50 && head[1] === 0x4b && (head[2] === 0x03 || head[2] === 0x05)) return 'zip';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  throw new SkillArchiveError('A skill source must be a folder, a .zip, a .tar or a .tar.gz/.tgz');
}
