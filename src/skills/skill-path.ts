import { SkillUnsafePathError } from '../errors/index.js';

/** Longer paths are refused: no skill needs them, and they bloat tar headers past the overhead budget. */
const maxPathBytes = 1024;
const maxSegmentBytes = 255;
// Control characters would make the canonical form ambiguous (it ends a path at `\n`) and terminals lie.
function hasControlCharacter(path: string): boolean {
  for (let index = 0; index < path.length; index += 1) {
    const code = path.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Turns a path as an archive or a folder walk names it into the canonical relative path
 * (`a/b/c.md`), or refuses it with `skill_unsafe_path`. A leading `./` and a trailing `/` are
 * dropped; anything else that is not a plain relative path is refused rather than repaired, so one
 * content has one spelling. Returns `''` for the skill's root itself (`./`).
 */
export function canonicalEntryPath(raw: string): string {
  let path = raw;
  while (path.startsWith('./')) path = path.slice(2);
  if (path.endsWith('/')) path = path.slice(0, -1);
  if (path === '' || path === '.') return '';
  const refuse = (reason: string): never => {
    throw new SkillUnsafePathError(`Skill entry ${JSON.stringify(raw)} is refused: ${reason}`, {
      path: raw,
      reason,
    });
  };
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) refuse('absolute path');
  if (path.includes('\\')) refuse('backslash in path');
  if (hasControlCharacter(path)) refuse('control character in path');
  // Node decodes names that are not valid UTF-8 to U+FFFD; such a name could not be written back.
  if (path.includes('\uFFFD')) refuse('name is not valid UTF-8');
  if (Buffer.byteLength(path) > maxPathBytes) refuse(`path longer than ${maxPathBytes} bytes`);
  for (const segment of path.split('/')) {
    if (segment === '..') refuse('path climbs out with ..');
    if (segment === '' || segment === '.') refuse('empty or . segment');
    if (Buffer.byteLength(segment) > maxSegmentBytes) refuse(`name longer than ${maxSegmentBytes} bytes`);
  }
  return path;
}
