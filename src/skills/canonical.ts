import { createHash } from 'node:crypto';
import type { SkillFile } from './skill-collector.js';
import { canonicalEntryPath } from './skill-path.js';

/**
 * The canonical form of a skill (docs/decisions/0050-content-addressed-skills.md): a header line,
 * then for each file in byte order of its UTF-8 path, a line `<x|f> <size> <path>`, the file's
 * bytes and a newline. It is also the stored blob, so the digest is the SHA-256 of the blob.
 */
const header = 'agentd-skill 1\n';
const digestPattern = /^sha256:[0-9a-f]{64}$/;

export function isSkillDigest(value: string): boolean {
  return digestPattern.test(value);
}

export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function comparePaths(left: SkillFile, right: SkillFile): number {
  return Buffer.compare(Buffer.from(left.path, 'utf8'), Buffer.from(right.path, 'utf8'));
}

/** Serializes files (in any order) to the canonical bytes. Paths must already be canonical. */
export function serializeSkill(files: readonly SkillFile[]): Buffer {
  const parts: Buffer[] = [Buffer.from(header, 'utf8')];
  for (const file of [...files].sort(comparePaths)) {
    parts.push(Buffer.from(`${file.executable ? 'x' : 'f'} ${file.content.length} ${file.path}\n`, 'utf8'));
    parts.push(file.content, Buffer.from('\n', 'utf8'));
  }
  return Buffer.concat(parts);
}

/**
 * Reads canonical bytes back into files. Throws a plain `Error` on anything that is not exactly
 * what `serializeSkill` writes; the store turns that into `skill_corrupt`.
 */
export function parseSkill(blob: Buffer): SkillFile[] {
  if (!blob.subarray(0, header.length).equals(Buffer.from(header, 'utf8'))) {
    throw new Error('missing canonical header');
  }
  const files: SkillFile[] = [];
  let offset = header.length;
  while (offset < blob.length) {
    const lineEnd = blob.indexOf(0x0a, offset);
    if (lineEnd === -1) throw new Error(`unterminated entry line at byte ${offset}`);
    const match = /^([xf]) (0|[1-9][0-9]*) (.+)$/s.exec(blob.toString('utf8', offset, lineEnd));
    if (match === null) throw new Error(`malformed entry line at byte ${offset}`);
    const [, kind, sizeText, path] = match;
    const size = Number(sizeText);
    const contentStart = lineEnd + 1;
    const contentEnd = contentStart + size;
    if (path === undefined || contentEnd >= blob.length || blob[contentEnd] !== 0x0a) {
      throw new Error(`truncated entry at byte ${offset}`);
    }
    if (!isCanonicalPath(path)) throw new Error(`unsafe path ${JSON.stringify(path)}`);
    const file = { path, executable: kind === 'x', content: blob.subarray(contentStart, contentEnd) };
    const previous = files.at(-1);
    if (previous !== undefined && comparePaths(previous, file) >= 0)
      throw new Error(`entries out of order at ${path}`);
    files.push(file);
    offset = contentEnd + 1;
  }
  return files;
}

// A blob written by hand under its own correct digest still must not steer `materialize` outside its target.
function isCanonicalPath(path: string): boolean {
  try {
    return canonicalEntryPath(path) === path;
  } catch {
    return false;
  }
}
