import { SkillInvalidError } from '../errors/index.js';

/** What agentd reads from `SKILL.md`'s YAML frontmatter; Claude Code reads the rest itself. */
export interface SkillManifest {
  name: string;
  /** `''` when the frontmatter has none (Claude Code then falls back to the body). */
  description: string;
}

// Claude Code's rule for skill names; it also makes the name safe as a directory name.
const namePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const maxNameLength = 64;
const maxDescriptionLength = 1024;

/**
 * Reads `name` and `description` from the frontmatter of `SKILL.md`. This is not a YAML parser:
 * it understands the top-level `key: value` scalars skills use (plain, quoted, `|` and `>`
 * blocks) and skips every other key, so a skill with richer frontmatter (`allowed-tools` lists,
 * `metadata` maps) still loads.
 */
export function parseSkillManifest(content: Buffer): SkillManifest {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(content);
  } catch (error) {
    throw new SkillInvalidError('SKILL.md is not valid UTF-8', { cause: String(error) });
  }
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---')
    throw new SkillInvalidError('SKILL.md has no YAML frontmatter (--- line first)');
  const end = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)\s*$/.test(line));
  if (end === -1) throw new SkillInvalidError('SKILL.md frontmatter is not closed by a --- line');
  const fields = readTopLevelScalars(lines.slice(1, end));

  const name = fields.get('name')?.trim() ?? '';
  if (name === '') throw new SkillInvalidError('SKILL.md frontmatter has no name');
  if (name.length > maxNameLength || !namePattern.test(name)) {
    throw new SkillInvalidError(
      `Skill name ${JSON.stringify(name)} must be lowercase letters, digits and hyphens, at most ${maxNameLength} characters`,
      { name },
    );
  }
  const description = fields.get('description')?.trim() ?? '';
  if (description.length > maxDescriptionLength) {
    throw new SkillInvalidError(`Skill description is longer than ${maxDescriptionLength} characters`, {
      name,
    });
  }
  return { name, description };
}

function readTopLevelScalars(lines: string[]): Map<string, string> {
  const fields = new Map<string, string>();
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    index += 1;
    const match = /^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$/.exec(line);
    if (match === null) continue; // indented continuation of a key we skip, a comment or a blank line
    const [, key = '', rawValue = ''] = match;
    const value = rawValue.replace(/\s+#.*$/, '').trim();
    if (/^[|>][+-]?$/.test(value)) {
      const block: string[] = [];
      while (index < lines.length && /^(\s+\S|\s*$)/.test(lines[index] ?? '')) {
        block.push(lines[index] ?? '');
        index += 1;
      }
      fields.set(key, foldBlock(block, value.startsWith('>')));
    } else if (value !== '') {
      fields.set(key, unquote(rawValue.trim()));
    }
  }
  return fields;
}

function foldBlock(block: string[], folded: boolean): string {
  const indents = block
    .filter((line) => line.trim() !== '')
    .map((line) => /^\s*/.exec(line)?.[0].length ?? 0);
  const indent = Math.min(...indents, Number.POSITIVE_INFINITY);
  const body = block.map((line) => line.slice(Number.isFinite(indent) ? indent : 0));
  return folded ? body.join(' ').replace(/ {2,}/g, ' ') : body.join('\n');
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'"))
    return value.slice(1, -1).replaceAll("''", "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // YAML escapes beyond JSON's: keep the text between the quotes as written.
    }
    return value.slice(1, -1);
  }
  return value.replace(/\s+#.*$/, '');
}
