import { describe, expect, it } from 'vitest';
import { digestOf, parseSkill, serializeSkill } from './canonical.js';

const skill = { path: 'SKILL.md', executable: false, content: Buffer.from('---\nname: x\n---\n') };
const script = { path: 'bin/run.sh', executable: true, content: Buffer.from('echo\n') };

describe('canonical skill form', () => {
  it('serializeSkill: matches the worked example of decision 0050 byte for byte', () => {
    const bytes = serializeSkill([script, skill]);

    expect(bytes.toString()).toBe(
      'agentd-skill 1\nf 16 SKILL.md\n---\nname: x\n---\n\nx 5 bin/run.sh\necho\n\n',
    );
    // Also `printf ... | sha256sum`, computed outside this code.
    expect(digestOf(bytes)).toBe('sha256:14e367baef6484528535ed542c1926f7404d3944b6afba4c8965d5351ea3be13');
  });

  it('serializeSkill: orders by UTF-8 bytes, not by UTF-16 code units or locale', () => {
    // JavaScript's default sort (UTF-16 code units) puts U+1F600 (surrogates 0xD83D...) before U+FF5E;
    // UTF-8 bytes (F0... against EF...) put it after.
    const files = ['z.md', 'a/b.md', 'A.md', '\u{1F600}.md', '\uFF5E.md', 'a-b.md'].map((path) => ({
      path,
      executable: false,
      content: Buffer.from(''),
    }));

    const order = parseSkill(serializeSkill(files)).map((file) => file.path);

    expect(order).toEqual(['A.md', 'a-b.md', 'a/b.md', 'z.md', '\uFF5E.md', '\u{1F600}.md']);
  });

  it('parseSkill: round-trips content, including bytes that look like entry lines', () => {
    const tricky = { path: 'notes.md', executable: false, content: Buffer.from('\nf 3 evil\nabc\n') };

    const parsed = parseSkill(serializeSkill([skill, tricky, script]));

    expect(parsed.map((file) => [file.path, file.executable, file.content.toString()])).toEqual([
      ['SKILL.md', false, '---\nname: x\n---\n'],
      ['bin/run.sh', true, 'echo\n'],
      ['notes.md', false, '\nf 3 evil\nabc\n'],
    ]);
  });

  it('parseSkill: refuses anything serializeSkill does not write', () => {
    const good = serializeSkill([skill]).toString();
    for (const bad of [
      good.replace('agentd-skill 1', 'agentd-skill 2'),
      good.slice(0, -1),
      good.replace('f 16', 'f 15'),
      good.replace('f 16', 'f 016'),
      good.replace('SKILL.md', '../SKILL.md'),
      `${good}f 0 A.md\n\n`, // out of order
      `${good}f 0 SKILL.md\n\n`, // duplicate
    ]) {
      expect(() => parseSkill(Buffer.from(bad))).toThrow();
    }
  });
});
