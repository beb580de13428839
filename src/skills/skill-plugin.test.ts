import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { AgentdError } from '../errors/index.js';
import { FileSkillStore } from './file-skill-store.js';
import { materializeSkillPlugin } from './skill-plugin.js';
import { writeFolder } from './test-fixtures/archives.js';

let root: string;
let store: FileSkillStore;
let plugins: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentd-skill-plugin-'));
  store = new FileSkillStore({ directory: join(root, 'skills') });
  plugins = join(root, 'plugins');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function addSkill(name: string, body = `# ${name}\n`): Promise<string> {
  const folder = join(root, 'sources', `${name}-${Math.random()}`);
  await writeFolder(folder, { 'SKILL.md': `---\nname: ${name}\ndescription: ${name} things\n---\n${body}` });
  return (await store.add(folder)).digest;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AgentdError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

it('a plugin folder with its manifest and exactly the selected skills, named agentd:<name>', async () => {
  const greeter = await addSkill('greeter');
  const reviewer = await addSkill('reviewer');
  await addSkill('not-selected');
  const plugin = await materializeSkillPlugin({ store, digests: [reviewer, greeter], directory: plugins });
  expect(plugin.skills.sort()).toEqual(['agentd:greeter', 'agentd:reviewer']);
  const manifest = JSON.parse(await readFile(join(plugin.path, '.claude-plugin', 'plugin.json'), 'utf8'));
  expect(manifest.name).toBe('agentd');
  expect((await readdir(join(plugin.path, 'skills'))).sort()).toEqual(['greeter', 'reviewer']);
  expect(await readFile(join(plugin.path, 'skills', 'greeter', 'SKILL.md'), 'utf8')).toContain(
    'greeter things',
  );
});

it('the same set, in any order and with repeats, is the same folder, made once', async () => {
  const a = await addSkill('alpha');
  const b = await addSkill('beta');
  const first = await materializeSkillPlugin({ store, digests: [a, b], directory: plugins });
  const second = await materializeSkillPlugin({ store, digests: [b, a, b], directory: plugins });
  expect(second.path).toBe(first.path);
  const other = await materializeSkillPlugin({ store, digests: [a], directory: plugins });
  expect(other.path).not.toBe(first.path);
});

it('workers racing on one set all get the whole folder; nothing partial is left', async () => {
  const digests = [await addSkill('alpha'), await addSkill('beta'), await addSkill('gamma')];
  const results = await Promise.all(
    Array.from({ length: 8 }, () => materializeSkillPlugin({ store, digests, directory: plugins })),
  );
  expect(new Set(results.map((result) => result.path)).size).toBe(1);
  expect(await readdir(plugins)).toHaveLength(1);
  expect((await readdir(join(results[0]!.path, 'skills'))).sort()).toEqual(['alpha', 'beta', 'gamma']);
});

it('a tampered blob is skill_corrupt, even when its folder was made before', async () => {
  const digest = await addSkill('greeter', 'say hello\n');
  await materializeSkillPlugin({ store, digests: [digest], directory: plugins });
  const blob = join(root, 'skills', 'sha256', digest.slice('sha256:'.length));
  await chmod(blob, 0o644);
  await writeFile(blob, (await readFile(blob, 'utf8')).replace('say hello', 'say byeee'));
  expect(await codeOf(materializeSkillPlugin({ store, digests: [digest], directory: plugins }))).toBe(
    'skill_corrupt',
  );
});

it('a missing skill is not_found; two skills of one name are invalid_config', async () => {
  expect(
    await codeOf(
      materializeSkillPlugin({ store, digests: [`sha256:${'0'.repeat(64)}`], directory: plugins }),
    ),
  ).toBe('not_found');
  const one = await addSkill('twin', 'one\n');
  const two = await addSkill('twin', 'two\n');
  expect(await codeOf(materializeSkillPlugin({ store, digests: [one, two], directory: plugins }))).toBe(
    'invalid_config',
  );
});
