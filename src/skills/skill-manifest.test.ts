import { describe, expect, it } from 'vitest';
import { AgentdError } from '../errors/index.js';
import { parseSkillManifest } from './skill-manifest.js';

function manifest(text: string) {
  return parseSkillManifest(Buffer.from(text));
}

function codeOf(text: string): string {
  try {
    manifest(text);
  } catch (error) {
    if (error instanceof AgentdError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('parseSkillManifest', () => {
  it('reads name and description, skipping other keys, lists and maps', () => {
    const text = [
      '---',
      'name: pdf-tools',
      'allowed-tools:',
      '  - Read',
      '  - Bash(python:*)',
      'metadata:',
      '  description: not this one',
      'description: "Fill PDF forms: use when asked."',
      '---',
      'body with name: other',
    ].join('\n');

    expect(manifest(text)).toEqual({ name: 'pdf-tools', description: 'Fill PDF forms: use when asked.' });
  });

  it('reads quoted, folded and literal descriptions, CRLF lines and a BOM', () => {
    expect(
      manifest("\uFEFF---\r\nname: 'a-b'\r\ndescription: it''s here # note\r\n---\r\n").description,
    ).toBe("it''s here");
    expect(manifest('---\nname: a\ndescription: >\n  one\n  two\n---\n').description).toBe('one two');
    expect(manifest('---\nname: a\ndescription: |\n  one\n  two\n---\n').description).toBe('one\ntwo');
    expect(manifest('---\nname: a\n---\n').description).toBe('');
  });

  it('refuses no frontmatter, no name and names Claude Code would not accept with skill_invalid', () => {
    expect(codeOf('# just markdown\n')).toBe('skill_invalid');
    expect(codeOf('---\nname: a\n')).toBe('skill_invalid');
    expect(codeOf('---\ndescription: x\n---\n')).toBe('skill_invalid');
    expect(codeOf('---\nname: My Skill\n---\n')).toBe('skill_invalid');
    expect(codeOf('---\nname: ../etc\n---\n')).toBe('skill_invalid');
    expect(codeOf(`---\nname: ${'a'.repeat(65)}\n---\n`)).toBe('skill_invalid');
    expect(codeOf(`---\nname: a\ndescription: ${'d'.repeat(1025)}\n---\n`)).toBe('skill_invalid');
    expect(() => parseSkillManifest(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]))).toThrow(
      expect.objectContaining({ code: 'skill_invalid' }),
    );
  });
});
