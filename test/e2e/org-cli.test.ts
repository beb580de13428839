/**
 * Providers, roles, skills, channels, grants and budgets through the CLI as a user types it
 * (`node bin/agentd.js …` against dist/), the turns answered by the scripted model through the
 * environment's (`env`) provider.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { skillMarkdown, writeFolder } from '../../src/skills/test-fixtures/archives.js';
import { lastUserText } from '../../src/testing/demo-model.js';
import type { RecordedRequest } from '../../src/testing/index.js';
import {
  type CliResult,
  createHarness,
  type Harness,
  isEvent,
  readJournal,
  readUntil,
  runCli,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

const echo = (request: RecordedRequest) => ({ text: `echo: ${lastUserText(request)}` });

/** `agentd ARGS… --data-dir DIR`, whatever its outcome. */
function agentdResult(h: Harness, ...args: string[]): Promise<CliResult> {
  return runCli([...args, '--data-dir', h.dataDir], h.env);
}

/** `agentd ARGS… --data-dir DIR`, expecting success. */
async function agentd(h: Harness, ...args: string[]): Promise<string> {
  const result = await agentdResult(h, ...args);
  expect(result, `agentd ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
}

async function agentdJson<T>(h: Harness, ...args: string[]): Promise<T> {
  return JSON.parse(await agentd(h, ...args, '--json')) as T;
}

/** A one-line error on stderr with the stable code in it, nothing on stdout. */
function expectClearError(result: CliResult, code: number, ...parts: string[]) {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stdout).toBe('');
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  for (const part of parts) expect(result.stderr).toContain(part);
}

describe('cli: providers, roles and skills', () => {
  it('providers add/list/show/remove; a role on a profile without its secret fails the send with credentials_missing naming it (exit 3)', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    expect(
      await agentd(
        h,
        ...['providers', 'add', 'router', '--kind', 'openrouter', '--secret-env', 'ROUTER_KEY_MISSING'],
        ...['--sonnet-model', 'z-ai/glm-4.7', '--haiku-model', 'z-ai/glm-4.5-air'],
      ),
    ).toBe('added provider router\n');
    expect(
      await agentd(
        h,
        'providers',
        'add',
        'router',
        '--kind',
        'openrouter',
        '--secret-env',
        'ROUTER_KEY_MISSING',
      ),
    ).toBe('replaced provider router\n');
    expect(await agentd(h, 'providers', 'list')).toBe(
      'router openrouter https://openrouter.ai/api secret env ROUTER_KEY_MISSING\n',
    );
    const shown = await agentdJson<Record<string, unknown>>(h, 'providers', 'show', 'router');
    expect(shown).toMatchObject({
      name: 'router',
      kind: 'openrouter',
      secret: { env: 'ROUTER_KEY_MISSING' },
    });
    expect(await agentd(h, 'providers', 'show', 'router')).toContain('secret    env ROUTER_KEY_MISSING');

    // Flags a user gets wrong: exit 2, nothing stored.
    expectClearError(
      await agentdResult(h, 'providers', 'add', 'bad', '--kind', 'custom', '--secret-env', 'X'),
      2,
      'baseUrl',
      '(invalid_input)',
    );
    expectClearError(
      await agentdResult(h, 'providers', 'add', 'bad', '--kind', 'anthropic'),
      2,
      '--secret-env',
    );
    expect(
      (await agentdResult(h, 'providers', 'add', 'bad', '--kind', 'azure', '--secret-env', 'X')).code,
    ).toBe(2);
    expectClearError(await agentdResult(h, 'providers', 'show', 'bad'), 4, '(not_found)');

    await agentd(h, 'roles', 'create', 'routed', '--provider', 'router', '--model', 'z-ai/glm-4.7');
    const refused = await agentdResult(h, 'start', '--role', 'routed', 'hello', '--cwd', h.cwd);
    expectClearError(refused, 3, 'router', '(credentials_missing)');
    const channelRefused = await agentdResult(h, 'send', '--channel', 'team', 'hello', '--role', 'routed');
    expectClearError(channelRefused, 3, 'router', '(credentials_missing)');
    for (const session of await h.runtime.listSessions())
      expect(await readJournal(h.runtime, session.id)).toEqual([]);

    // In use by a role: refused; once the role is gone, removed.
    expectClearError(await agentdResult(h, 'providers', 'remove', 'router'), 4, 'routed', '(invalid_state)');
    await agentd(h, 'roles', 'delete', 'routed');
    expect(await agentd(h, 'providers', 'remove', 'router')).toBe('removed provider router\n');
    expect(await agentdJson(h, 'providers', 'list')).toEqual([]);
  });

  it('roles: create, update (version grows; a surface change archives sessions, a label change keeps them), show --history, default', async () => {
    harness = await createHarness({ script: echo });
    const h = harness;
    const promptFile = join(h.root, 'prompt.md');
    await writeFolder(h.root, { 'prompt.md': 'You review code.' });
    expect(
      await agentd(
        h,
        ...['roles', 'create', 'reviewer', '--label', 'Reviewer', '--ordering', '2'],
        ...['--system-prompt-file', promptFile, '--tools', 'Read,Grep', '--permission-mode', 'default'],
      ),
    ).toBe('created role reviewer version 1\n');
    expectClearError(await agentdResult(h, 'roles', 'create', 'reviewer'), 4, '(conflict)');
    expectClearError(await agentdResult(h, 'roles', 'create', 'Bad Name'), 2, '(invalid_input)');

    const sessionId = (await agentd(h, 'start', '--role', 'reviewer', 'first', '--cwd', h.cwd)).trim();
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    const request = h.model.conversationRequests().at(-1);
    expect(JSON.stringify(request?.body?.system)).toContain('You review code.');

    expect(await agentd(h, 'roles', 'update', 'reviewer', '--label', 'Code reviewer')).toBe(
      'role reviewer version 2\nno sessions archived\n',
    );
    expect((await h.runtime.getSession(sessionId)).session.state).toBe('active');
    expectClearError(
      await agentdResult(h, 'roles', 'update', 'reviewer', '--model', 'x', '--expect-version', '1'),
      4,
      '(conflict)',
    );
    expect(
      await agentd(h, 'roles', 'update', 'reviewer', '--model', 'claude-other', '--expect-version', '2'),
    ).toBe(`role reviewer version 3\narchived 1 session: ${sessionId}\n`);
    expect((await h.runtime.getSession(sessionId)).session.state).toBe('archived');
    const change = await agentdJson<{ role: { version: number; model: unknown }; archived: string[] }>(
      h,
      ...['roles', 'update', 'reviewer', '--clear', 'model'],
    );
    expect(change).toMatchObject({ role: { version: 4, model: null }, archived: [] });

    const history = await agentdJson<Array<{ version: number; label: string }>>(
      h,
      ...['roles', 'show', 'reviewer', '--history'],
    );
    expect(history.map((version) => [version.version, version.label])).toEqual([
      [1, 'Reviewer'],
      [2, 'Code reviewer'],
      [3, 'Code reviewer'],
      [4, 'Code reviewer'],
    ]);
    expect(await agentdJson(h, 'roles', 'show', 'reviewer', '--version', '3')).toMatchObject({
      version: 3,
      model: 'claude-other',
      tools: ['Read', 'Grep'],
    });
    expect(await agentd(h, 'roles', 'show', 'reviewer')).toContain(
      'role        default/reviewer version 4\n',
    );

    expect(await agentd(h, 'roles', 'default')).toBe('default\n');
    expectClearError(await agentdResult(h, 'roles', 'delete', 'default'), 4, '(invalid_state)');
    expect(await agentd(h, 'roles', 'default', 'reviewer')).toBe('reviewer\n');
    expect(await agentd(h, 'roles', 'default')).toBe('reviewer\n');
    const listed = await agentd(h, 'roles', 'list');
    expect(listed).toContain('* reviewer v4 "Code reviewer"');
    expect(listed).toContain('  default v1 "Default"');
    expect(await agentdJson(h, 'roles', 'list')).toMatchObject({ defaultRole: 'reviewer' });
    expectClearError(await agentdResult(h, 'roles', 'default', 'nobody'), 4, '(not_found)');
  });

  it('skills: add prints the digest, the same content twice is stored once, list/show/remove', async () => {
    harness = await createHarness({ script: [] });
    const h = harness;
    const folder = join(h.root, 'pdf-tools');
    await writeFolder(folder, {
      'SKILL.md': skillMarkdown,
      'scripts/merge.sh': { content: 'echo merge\n', mode: 0o755 },
    });
    const digest = (await agentd(h, 'skills', 'add', folder)).trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await agentdJson(h, 'skills', 'add', folder)).toMatchObject({
      digest,
      created: false,
      name: 'pdf-tools',
    });
    expect(await agentd(h, 'skills', 'list')).toBe(
      `${digest} pdf-tools 2 files ${skillMarkdown.length + 11} bytes\n`,
    );
    expect(await agentd(h, 'skills', 'show', digest)).toContain('  scripts/merge.sh 11 (executable)\n');

    const unsafe = join(h.root, 'no-skill');
    await writeFolder(unsafe, { 'README.md': 'no SKILL.md here' });
    expect((await agentdResult(h, 'skills', 'add', unsafe)).code).toBe(2);

    await agentd(h, 'roles', 'create', 'pdf', '--skill', digest);
    expectClearError(await agentdResult(h, 'skills', 'remove', digest), 4, '(invalid_state)');
    await agentd(h, 'roles', 'update', 'pdf', '--clear', 'skills');
    expect(await agentd(h, 'skills', 'remove', digest)).toBe(`removed skill ${digest}\n`);
    expectClearError(await agentdResult(h, 'skills', 'show', digest), 4, '(not_found)');
  });
});

describe('cli: channels, commands, grants and budgets', () => {
  it('channels bind/show/select-role, send --channel with text and commands, --as a principal, grants, principals token, budgets', async () => {
    harness = await createHarness({ script: echo });
    const h = harness;
    await agentd(h, 'roles', 'create', 'writer', '--label', 'Writer');
    expect(await agentd(h, 'channels', 'bind', 'tg:-100123', '--project', 'blog')).toBe(
      'bound tg:-100123 to default/blog, role default\n',
    );
    expect(await agentd(h, 'channels', 'bind', 'tg:-100123', '--project', 'blog')).toBe(
      'already bound tg:-100123 to default/blog, role default\n',
    );
    expect(await agentd(h, 'channels', 'show', 'tg:-100123')).toContain('session   none yet\n');

    // Text goes to the channel's session for its role; commands run; an unknown one changes nothing.
    const sent = await agentd(h, 'send', '--channel', 'tg:-100123', 'hello channel', '--message-id', 'c-1');
    const [, sessionId] = /^c-1 \w+ session (\S+)\n$/.exec(sent) ?? [];
    expect(sessionId).toBeDefined();
    await readUntil(h.runtime, sessionId!, isEvent('work.settled'));
    expect(await agentd(h, 'send', '--channel', 'tg:-100123', '/help')).toContain('  /status   ');
    const status = await agentd(h, 'send', '--channel', 'tg:-100123', '/status');
    expect(status).toContain(`session   ${sessionId} (active)\n`);
    expect(status).toContain('role      default/default version 1\n');
    const before = await readJournal(h.runtime, sessionId!);
    expectClearError(
      await agentdResult(h, 'send', '--channel', 'tg:-100123', '/model opus'),
      2,
      '/model',
      '(unknown_command)',
    );
    expectClearError(await agentdResult(h, 'send', sessionId!, '/bogus'), 2, '(unknown_command)');
    expect(await readJournal(h.runtime, sessionId!)).toEqual(before);
    const statusJson = await agentdJson<{
      kind: string;
      command: string;
      status: { session: { id: string } };
    }>(h, ...['send', sessionId!, '/status']);
    expect(statusJson).toMatchObject({
      kind: 'command',
      command: 'status',
      status: { session: { id: sessionId } },
    });

    // A principal with agent.trigger on the project but not role.trigger may not switch roles.
    const grantId = (
      await agentd(h, 'grants', 'add', 'alice', 'agent.trigger', 'project:default/blog')
    ).trim();
    expect(await agentd(h, 'grants', 'list', '--principal', 'alice')).toBe(
      `${grantId} alice agent.trigger project:default/blog\n`,
    );
    expectClearError(
      await agentdResult(h, 'channels', 'select-role', 'tg:-100123', 'writer', '--as', 'alice'),
      4,
      'role.trigger',
      '(forbidden)',
    );
    expect(await agentdJson(h, 'channels', 'show', 'tg:-100123')).toMatchObject({
      channel: { role: 'default' },
    });
    expectClearError(await agentdResult(h, 'roles', 'create', 'mine', '--as', 'alice'), 4, '(forbidden)');
    await agentd(h, 'grants', 'add', 'alice', 'role.trigger', 'role:default/writer');
    expect(await agentd(h, 'channels', 'select-role', 'tg:-100123', 'writer', '--as', 'alice')).toBe(
      'channel tg:-100123 now uses role writer\n',
    );
    expect(await agentd(h, 'channels', 'show', 'tg:-100123')).toContain('session   none yet\n');
    expect(await agentd(h, 'channels', 'list')).toBe('tg:-100123 default/blog role writer\n');
    expect(await agentd(h, 'grants', 'remove', grantId)).toBe(`removed grant ${grantId}\n`);
    expectClearError(await agentdResult(h, 'grants', 'remove', grantId), 4, '(not_found)');

    const token = (await agentd(h, 'principals', 'token', 'alice')).trim();
    expect(token).toMatch(/^agentd_/);
    expect(await h.runtime.grants.principalOfToken(token)).toBe('alice');

    // Budgets: a limit reached refuses the next message (exit 4) until it is raised.
    const reached = await agentd(h, 'budgets', 'set', 'session', sessionId!, '0');
    expect(reached).toMatch(/^session \S+: \$0\.\d+ spent of \$0\.0000 \(reached\)\n$/);
    await agentd(h, 'channels', 'select-role', 'tg:-100123', 'default');
    expectClearError(
      await agentdResult(h, 'send', '--channel', 'tg:-100123', 'over budget'),
      4,
      '(budget_exceeded)',
    );
    expect(await agentd(h, 'budgets', 'list')).toMatch(
      new RegExp(`^session ${sessionId} \\$0\\.\\d+ of \\$0\\.0000 reached\\n$`),
    );
    await agentd(h, 'budgets', 'set', 'role', 'default/default', '5');
    expect(await agentd(h, 'budgets', 'set', 'session', sessionId!, 'none')).toBe(
      `session ${sessionId}: no limit\n`,
    );
    const budgets = await agentdJson<Array<{ scope: string; target: string; limitUsd: number }>>(
      h,
      'budgets',
      'list',
    );
    expect(budgets).toMatchObject([
      { scope: 'role', target: 'default/default', limitUsd: 5, exceeded: false },
    ]);
    expect((await agentdResult(h, 'budgets', 'set', 'session', sessionId!, 'lots')).code).toBe(2);
  });
});
