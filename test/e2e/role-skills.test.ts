/**
 * A role's skills, as the worker gives them to its session: the selected stored skills reach the
 * model (claude lists them to it as `agentd:<name>`), a stored skill not selected, a project skill
 * and the user's own skills do not (the user's do with `userSkills`). A tampered blob fails the
 * execution with `skill_corrupt` and the model is never asked. A session made before roles (no
 * `skillDigests`) is as it was.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dataPaths } from '../../src/journal/data-dir.js';
import { FileSkillStore } from '../../src/skills/index.js';
import type { RecordedRequest } from '../../src/testing/index.js';
import { createHarness, dataOf, type Harness, isEvent, lastUserText, readUntil } from './helpers.js';
import { createWorkerSession, journalInput, startWorker } from './support/worker-session.js';

let h: Harness;
let skills: FileSkillStore;
const digests: Record<string, string> = {};

/** Writes a skill folder whose description carries a marker the request log can be searched for. */
function skillFolder(root: string, name: string): string {
  const folder = join(root, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${name.toUpperCase()}-MARK helps with ${name}\n---\n# ${name}\nSay hello.\n`,
  );
  return folder;
}

beforeAll(async () => {
  h = await createHarness({
    script: (_request, index) => ({ text: `reply ${index}` }),
    env: { AGENTD_IDLE_TIMEOUT_MS: '1500' },
  });
  skills = new FileSkillStore({ directory: dataPaths(h.dataDir).skills });
  for (const name of ['greeter', 'reviewer', 'tampered'])
    digests[name] = (await skills.add(skillFolder(join(h.root, 'sources'), name))).digest;
  skillFolder(join(h.env.CLAUDE_CONFIG_DIR!, 'skills'), 'user-own');
  skillFolder(join(h.cwd, '.claude', 'skills'), 'project-own');
});
afterAll(async () => {
  await h?.cleanup();
});

/** Runs one turn of a new session with `config` and returns the conversation request it made. */
async function turnWith(prompt: string, config: Record<string, unknown>): Promise<RecordedRequest> {
  const session = await createWorkerSession(h, { provider: 'anthropic', config });
  await journalInput(h, session.id, prompt);
  const execution = await startWorker(h, session.id);
  const events = await readUntil(h.runtime, session.id, isEvent('work.settled', execution.id));
  expect(events.some(isEvent('execution.failed'))).toBe(false);
  const request = h.model.conversationRequests().find((each) => lastUserText(each).includes(prompt));
  expect(request, `the model was asked "${prompt}"`).toBeDefined();
  return request!;
}

const marks = (request: RecordedRequest) => {
  const text = JSON.stringify(request.body);
  return ['GREETER', 'REVIEWER', 'TAMPERED', 'USER-OWN', 'PROJECT-OWN'].filter((name) =>
    text.includes(`${name}-MARK`),
  );
};

it("the role's skills and no others reach the model, named agentd:<name>", async () => {
  const request = await turnWith('hello with skills', { skillDigests: [digests.greeter, digests.reviewer] });
  expect(marks(request)).toEqual(['GREETER', 'REVIEWER']);
  const text = JSON.stringify(request.body?.messages);
  expect(text).toContain('agentd:greeter: GREETER-MARK helps with greeter');
  // claude's own bundled skills are hidden too: the listing holds exactly the role's.
  const listing = /The following skills are available[^"]*?\\n\\n((?:- [^\n]*?\\n)*)/.exec(text)?.[1] ?? '';
  expect(listing.split('\\n').filter(Boolean)).toEqual([
    '- agentd:greeter: GREETER-MARK helps with greeter',
    '- agentd:reviewer: REVIEWER-MARK helps with reviewer',
  ]);
});

it('no skills selected: none at all; userSkills adds the user’s own folder', async () => {
  expect(marks(await turnWith('hello without skills', { skillDigests: [] }))).toEqual([]);
  expect(
    marks(await turnWith('hello with my own skills', { skillDigests: [digests.greeter], userSkills: true })),
  ).toEqual(['GREETER', 'USER-OWN']);
});

it('a session made before roles (no skillDigests) sees what it saw before', async () => {
  expect(marks(await turnWith('hello as before', {}))).toEqual(['USER-OWN', 'PROJECT-OWN']);
});

it('a tampered blob: execution.failed with skill_corrupt, the model never asked, the input still accepted', async () => {
  const blob = join(dataPaths(h.dataDir).skills, 'sha256', digests.tampered!.slice('sha256:'.length));
  chmodSync(blob, 0o644);
  writeFileSync(blob, readFileSync(blob, 'utf8').replace('Say hello.', 'Say HELLO.'));
  const session = await createWorkerSession(h, {
    provider: 'anthropic',
    config: { skillDigests: [digests.greeter!, digests.tampered!] },
  });
  const input = await journalInput(h, session.id, 'hello tampered');
  const execution = await startWorker(h, session.id);
  const events = await readUntil(h.runtime, session.id, isEvent('execution.failed', execution.id));
  const failed = dataOf(events.find(isEvent('execution.failed'))!) as { error: { code: string } };
  expect(failed.error.code).toBe('skill_corrupt');
  expect(h.model.requests.some((request) => lastUserText(request).includes('hello tampered'))).toBe(false);
  expect((await h.runtime.store.getInput(session.id, input.messageId))?.state).toBe('accepted');
});
