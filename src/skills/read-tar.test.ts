import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSkillTar } from './read-tar.js';
import { defaultSkillLimits, SkillCollector } from './skill-collector.js';
import { skillMarkdown, tarGz } from './test-fixtures/archives.js';

describe('readSkillTar', () => {
  it('a source that fails mid-read is skill_archive_invalid, not a hang', { timeout: 10_000 }, async () => {
    const archive = tarGz([{ path: 'SKILL.md', content: skillMarkdown }]);
    async function* failing(): AsyncGenerator<Buffer> {
      yield archive.subarray(0, 20);
      throw new Error('EIO: disk went away');
    }

    const reading = readSkillTar({
      input: Readable.from(failing()),
      gzipped: true,
      collector: new SkillCollector(defaultSkillLimits),
      limits: defaultSkillLimits,
    });

    await expect(reading).rejects.toMatchObject({ code: 'skill_archive_invalid' });
  });
});
