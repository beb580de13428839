import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, type SendMessageRequest, type Task, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialsMissingError } from '../../src/errors/index.js';
import { ConflictError, createRuntime, type InteractionRecord, type Runtime } from '../../src/index.js';
import {
  functionCallOutputs,
  type RecordedRequest,
  type Script,
  type ScriptedResponses,
  startScriptedResponses,
  userTexts,
} from '../../src/testing/index.js';
import { startA2aServer, stopAllWorkers } from './a2a-harness.js';
import {
  checkGuarantees,
  childrenOf,
  dataOf,
  type Env,
  isEvent,
  isolatedEnv,
  isRunning,
  killGroup,
  killWorkers,
  readJournal,
  readUntil,
  runCli,
  waitFor,
} from './helpers.js';

// Codex sessions through the runtime, the CLI and A2A: detached workers running the real `codex`
// executable (`codex app-server`) against the scripted Responses API server, no credentials.

interface CodexHarness {
  root: string;
  dataDir: string;
  cwd: string;
  model: ScriptedResponses;
  env: Env;
  runtime: Runtime;
  cleanup(): Promise<void>;
}

let harness: CodexHarness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

async function createCodexHarness(script: Script, extra: Env = {}): Promise<CodexHarness> {
  const root = mkdtempSync(join(tmpdir(), 'agentd-e2e-codex-'));
  const dataDir = join(root, 'data');
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(root, 'home', '.codex'), { recursive: true });
  const model = await startScriptedResponses({ script });
  // codex's threads (its resume cursor's data) live in CODEX_HOME, inside the test's own home.
  const env = isolatedEnv(root, { ...model.env(), CODEX_HOME: join(root, 'home', '.codex'), ...extra });
  const runtime = await createRuntime({ dataDir, env, pollMs: 25 });
  return {
    root,
    dataDir,
    cwd,
    model,
    env,
    runtime,
    async cleanup() {
      await killWorkers(dataDir);
      await runtime.close().catch(() => {});
      await model.close();
      rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** The last thing the person typed in a Responses request. */
const lastText = (request: RecordedRequest) => userTexts(request).at(-1) ?? '';

/**
 * `say X` echoes X; `run C` runs the shell command C, then reports its output; `escalate C` asks to
 * run C outside the sandbox (codex asks a person first); `slow` takes a while.
 */
function echoScript(request: RecordedRequest) {
  const outputs = functionCallOutputs(request);
  const said = lastText(request);
  const input = (request.body as { input?: Array<{ type?: string }> } | null)?.input ?? [];
  if (input.at(-1)?.type === 'function_call_output') return { text: `ran: ${outputs.at(-1)?.output ?? ''}` };
  if (said.startsWith('Continue where you left off')) return { text: 'continued' };
  if (said.startsWith('run ')) {
    return { content: [{ type: 'tool_use' as const, name: 'exec_command', input: { cmd: said.slice(4) } }] };
  }
  if (said.startsWith('escalate ')) {
    const cmd = said.slice('escalate '.length);
    const args = { cmd, sandbox_permissions: 'require_escalated', justification: 'the test asks for it' };
    return { content: [{ type: 'tool_use' as const, name: 'exec_command', input: args }] };
  }
  if (said === 'slow') return { text: 'slow reply', delayMs: 60_000 };
  return { text: `echo: ${said}` };
}

describe('codex sessions through the runtime', () => {
  it('a text turn and a command that runs: journaled with the backend named, the thread id as the cursor', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const { session } = await h.runtime.createSession({ backend: 'codex', prompt: 'say hi', cwd: h.cwd });
    expect(session.provider).toBe('openai');
    expect(session.config.backend).toBe('codex');
    let events = await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const started = events.find(isEvent('session.started'));
    expect(started && dataOf(started)).toMatchObject({ backend: 'codex', cwd: h.cwd });
    expect(events.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'echo: say hi',
    ]);
    const threadId = started && String(dataOf(started).sessionId);
    expect((await h.runtime.getSession(session.id)).session.nativeSessionId).toBe(threadId);

    const cursor = events.at(-1)!.cursor;
    await h.runtime.send(session.id, {
      text: 'run echo codex-was-here > proof.txt && echo done',
      messageId: 'm-run',
    });
    events = await readUntil(h.runtime, session.id, isEvent('work.settled'), { after: cursor });
    const call = events.find(isEvent('agent.tool_call'));
    expect(call && dataOf(call)).toMatchObject({ name: 'shell' });
    const result = events.find(isEvent('agent.tool_result'));
    expect(result && dataOf(result)).toMatchObject({
      isError: false,
      content: expect.stringContaining('done'),
    });
    expect(readFileSync(join(h.cwd, 'proof.txt'), 'utf8')).toBe('codex-was-here\n');
    await checkGuarantees(h.runtime, session.id, {});
  });

  it('send: the same message id is the same input, delivered once; other text conflicts; the thread keeps earlier turns', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const { session } = await h.runtime.createSession({
      backend: 'codex',
      prompt: 'say one',
      cwd: h.cwd,
      messageId: 'm-1',
    });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const again = await h.runtime.send(session.id, { text: 'say one', messageId: 'm-1' });
    expect(again.state).toBe('delivered');
    await expect(h.runtime.send(session.id, { text: 'say other', messageId: 'm-1' })).rejects.toBeInstanceOf(
      ConflictError,
    );
    const cursor = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'say two', messageId: 'm-2' });
    await readUntil(h.runtime, session.id, isEvent('work.settled'), { after: cursor });
    const requests = h.model.conversationRequests();
    expect(requests.filter((request) => lastText(request) === 'say one')).toHaveLength(1);
    const second = requests.find((request) => lastText(request) === 'say two');
    expect(second && userTexts(second)).toEqual(['say one', 'say two']);
    expect(JSON.stringify(second?.body)).toContain('echo: say one');
  });

  it('worker SIGKILLed mid-turn: the delivered input is never resent; a new worker resumes the thread with its earlier turns', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const { session } = await h.runtime.createSession({ backend: 'codex', prompt: 'say first', cwd: h.cwd });
    await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const cursor = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'slow', messageId: 'm-slow' });
    await waitFor(() => h.model.conversationRequests().some((request) => lastText(request) === 'slow'), {
      what: 'the slow request',
    });
    // codex tells the worker of the turn as it asks the model: under load the request can come
    // first, and a kill in between rightly leaves the input uncertain. Kill once it is delivered.
    await readUntil(h.runtime, session.id, isEvent('input.delivered'), { after: cursor });
    const live = (await h.runtime.getSession(session.id)).live;
    expect(live?.pid).toBeTypeOf('number');
    killGroup(live!.pid!);
    await waitFor(() => !isRunning(live!.pid!), { what: 'the worker to die' });
    // Delivered before the kill, and never sent again.
    await readUntil(h.runtime, session.id, isEvent('execution.failed'), { after: cursor });
    expect((await h.runtime.store.getInput(session.id, 'm-slow'))?.state).toBe('delivered');

    const after = (await readJournal(h.runtime, session.id)).length;
    await h.runtime.send(session.id, { text: 'say after', messageId: 'm-after' });
    const events = await readUntil(h.runtime, session.id, isEvent('work.settled'), { after });
    expect(events.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'echo: say after',
    ]);
    const resumed = h.model.conversationRequests().find((request) => lastText(request) === 'say after');
    expect(resumed && userTexts(resumed)).toContain('say first');
    expect(h.model.conversationRequests().filter((request) => lastText(request) === 'slow')).toHaveLength(1);
    await checkGuarantees(h.runtime, session.id, {});
  });

  it('interrupt: the turn ends cancelled, the session takes the next message', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const { session } = await h.runtime.createSession({ backend: 'codex', prompt: 'slow', cwd: h.cwd });
    await waitFor(() => h.model.conversationRequests().length === 1, { what: 'the slow request' });
    await h.runtime.interrupt(session.id);
    const events = await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const error = events.find(isEvent('agent.error'));
    expect(error && dataOf(error).error).toMatchObject({ code: 'cancelled' });
    const cursor = events.at(-1)!.cursor;
    await h.runtime.send(session.id, { text: 'say still here' });
    const next = await readUntil(h.runtime, session.id, isEvent('work.settled'), { after: cursor });
    expect(next.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'echo: say still here',
    ]);
  });

  it('a 401 fails the turn at once with authentication; no credentials refuses the session', async () => {
    harness = await createCodexHarness(() => ({ error: { status: 401, message: 'invalid key' } }));
    const h = harness;
    const { session } = await h.runtime.createSession({ backend: 'codex', prompt: 'say hi', cwd: h.cwd });
    const events = await readUntil(h.runtime, session.id, isEvent('work.settled'));
    const error = events.find(isEvent('agent.error'));
    expect(error && dataOf(error).error).toMatchObject({
      code: 'authentication',
      status: 401,
      transient: false,
    });
    expect(events.some(isEvent('agent.retry'))).toBe(false);
    expect(h.model.conversationRequests().length).toBeLessThanOrEqual(2);

    const bare = await createRuntime({
      dataDir: join(h.root, 'bare'),
      env: { ...h.env, OPENAI_API_KEY: '' },
    });
    try {
      await expect(
        bare.createSession({ backend: 'codex', prompt: 'say hi', cwd: h.cwd }),
      ).rejects.toBeInstanceOf(CredentialsMissingError);
    } finally {
      await bare.close();
    }
  });
});

describe('codex sessions through the CLI', () => {
  it('agentd run --backend codex answers in the foreground; start --backend codex and show name the backend', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const env = { ...h.env, AGENTD_DATA_DIR: h.dataDir };
    const run = await runCli(['run', '--backend', 'codex', '--cwd', h.cwd, 'say from run'], env, 90_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('echo: say from run');

    const started = await runCli(
      ['start', '--backend', 'codex', '--cwd', h.cwd, 'say from start'],
      env,
      60_000,
    );
    expect(started.code, started.stderr).toBe(0);
    const sessionId = started.stdout.trim();
    await readUntil(h.runtime, sessionId, isEvent('work.settled'));
    const shown = await runCli(['show', sessionId], env);
    expect(shown.stdout).toMatch(/^backend\s+codex$/m);
    const json = JSON.parse((await runCli(['show', sessionId, '--json'], env)).stdout);
    expect(json.session.config.backend).toBe('codex');

    const bad = await runCli(['run', '--backend', 'gpt', 'hello'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('expected one of claude, codex');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('a role with backend codex: sessions made under it run on codex', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const env = { ...h.env, AGENTD_DATA_DIR: h.dataDir };
    const created = await runCli(['roles', 'create', 'coder', '--backend', 'codex'], env);
    expect(created.code, created.stderr).toBe(0);
    const shown = await runCli(['roles', 'show', 'coder'], env);
    expect(shown.stdout).toMatch(/^backend\s+codex$/m);
    const { session } = await h.runtime.createSession({ role: 'coder', prompt: 'say as coder', cwd: h.cwd });
    expect(session.config.backend).toBe('codex');
    const events = await readUntil(h.runtime, session.id, isEvent('work.settled'));
    expect(events.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'echo: say as coder',
    ]);
  });
});

describe('codex sessions through A2A', () => {
  it('a message naming a codex role is answered by codex', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    await h.runtime.close();
    const server = await startA2aServer({ dataDir: h.dataDir, env: h.env, cwd: h.cwd });
    try {
      await server.runtime.roles.create({ name: 'coder', backend: 'codex' });
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['JSONRPC'] }),
      );
      const client = await factory.createFromUrl(server.url);
      const request: SendMessageRequest = {
        tenant: '',
        message: {
          messageId: randomUUID(),
          contextId: `codex-${randomUUID()}`,
          taskId: '',
          role: Role.ROLE_USER,
          parts: [
            {
              content: { $case: 'text', value: 'say over a2a' },
              metadata: undefined,
              filename: '',
              mediaType: 'text/plain',
            },
          ],
          metadata: { 'agentd.role': 'coder' },
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          returnImmediately: false,
        },
        metadata: undefined,
      };
      const task = (await client.sendMessage(request)) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(JSON.stringify(task)).toContain('echo: say over a2a');
      const sessionId = String(task.metadata?.['agentd.sessionId']);
      const { session } = await server.runtime.getSession(sessionId);
      expect(session.config.backend).toBe('codex');
      expect(session.role).toBe('coder');
      expect(h.model.conversationRequests().some((each) => lastText(each) === 'say over a2a')).toBe(true);
      await stopAllWorkers(server.runtime);
    } finally {
      await server.close();
    }
    harness = { ...h, runtime: await createRuntime({ dataDir: h.dataDir, env: h.env }) };
  });
});

/**
 * Starts a session whose command asks to leave the sandbox, waits for the approval, and SIGKILLs the
 * worker's process group (its `codex app-server` with it) while the approval is pending.
 */
async function askThenKill(h: CodexHarness, command: string) {
  const { session } = await h.runtime.createSession({
    backend: 'codex',
    prompt: `escalate ${command}`,
    cwd: h.cwd,
  });
  const interaction = await waitFor(
    async () => (await h.runtime.interactions({ sessionId: session.id, state: 'pending' }))[0],
    { what: 'the approval to be asked' },
  );
  const live = (await h.runtime.getSession(session.id)).live;
  expect(live?.pid).toBeTypeOf('number');
  const codex = childrenOf(live!.pid!);
  expect(codex.length).toBeGreaterThan(0);
  killGroup(live!.pid!);
  await waitFor(() => !isRunning(live!.pid!) && codex.every((pid) => !isRunning(pid)), {
    what: 'the worker and its codex to die',
  });
  await readUntil(h.runtime, session.id, isEvent('execution.failed'));
  return { sessionId: session.id, interaction };
}

const conflict = (error: unknown) => error instanceof ConflictError && error.code === 'conflict';

describe('codex approvals survive the death of the worker', () => {
  it('pending through a SIGKILL; approved with agentd approve, the next worker runs the command exactly once', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const env = { ...h.env, AGENTD_DATA_DIR: h.dataDir };
    const command = 'echo approved >> approved.txt && echo wrote-it';
    const { sessionId, interaction } = await askThenKill(h, command);
    expect([interaction.kind, interaction.toolName]).toEqual(['approval', 'shell']);
    expect(interaction.request.input).toMatchObject({ command, cwd: h.cwd, reason: 'the test asks for it' });
    const journal = await readJournal(h.runtime, sessionId);
    const call = journal.find(isEvent('agent.tool_call'));
    expect(call && dataOf(call)).toMatchObject({ toolUseId: interaction.toolUseId, name: 'shell' });
    expect(journal.some(isEvent('agent.tool_permission'))).toBe(false);
    expect(existsSync(join(h.cwd, 'approved.txt'))).toBe(false);

    // Still pending, as the CLI shows it.
    const listed = await runCli(['approvals', '--session', sessionId, '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as InteractionRecord[]).map((each) => each.id)).toEqual([
      interaction.id,
    ]);
    await checkGuarantees(h.runtime, sessionId, { pending: [interaction.id] });

    const approved = await runCli(['approve', interaction.id], env);
    expect(approved.code, approved.stderr).toBe(0);
    const resumed = await runCli(['resume', sessionId], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const executionId = (await h.runtime.listExecutions(sessionId)).at(-1)!.id;
    const events = await readUntil(h.runtime, sessionId, isEvent('work.settled', executionId));

    expect(readFileSync(join(h.cwd, 'approved.txt'), 'utf8')).toBe('approved\n');
    const result = events.find(isEvent('agent.tool_result'));
    expect(result && dataOf(result)).toMatchObject({
      toolUseId: interaction.toolUseId,
      isError: false,
      content: expect.stringContaining('wrote-it'),
    });
    const handed = (await readJournal(h.runtime, sessionId)).filter(isEvent('agent.tool_permission'));
    expect(handed.map((event) => dataOf(event))).toEqual([
      expect.objectContaining({ toolUseId: interaction.toolUseId, behavior: 'allow' }),
    ]);
    // The model got the command's output as the output of the very call that asked.
    const last = h.model.conversationRequests().at(-1)!;
    expect(functionCallOutputs(last)).toEqual([
      { callId: interaction.toolUseId, output: expect.stringContaining('wrote-it') },
    ]);
    expect(events.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual(['continued']);
    expect(await h.runtime.interactions({ state: 'pending' })).toEqual([]);
    await expect(
      h.runtime.answer(interaction.id, { decision: 'deny', reason: 'too late' }),
    ).rejects.toSatisfy(conflict);
    await checkGuarantees(h.runtime, sessionId, {});
  });

  it('denied after a SIGKILL: the command never runs, and the model gets the reason in its call', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const env = { ...h.env, AGENTD_DATA_DIR: h.dataDir };
    const { sessionId, interaction } = await askThenKill(h, 'echo denied > denied.txt');
    const reason = 'Not on this machine.';
    const denied = await runCli(['deny', interaction.id, '--reason', reason], env);
    expect(denied.code, denied.stderr).toBe(0);
    const execution = await h.runtime.resume(sessionId);
    const events = await readUntil(h.runtime, sessionId, isEvent('work.settled', execution.id));
    expect(existsSync(join(h.cwd, 'denied.txt'))).toBe(false);
    const result = events.find(isEvent('agent.tool_result'));
    expect(result && dataOf(result)).toMatchObject({ toolUseId: interaction.toolUseId, isError: true });
    const output = functionCallOutputs(h.model.conversationRequests().at(-1)!);
    expect(output).toEqual([{ callId: interaction.toolUseId, output: expect.stringContaining(reason) }]);
    await checkGuarantees(h.runtime, sessionId, {});
  });

  it('approved for the session on a live worker: the same command later is decided by the rule, not asked again', async () => {
    harness = await createCodexHarness(echoScript);
    const h = harness;
    const env = { ...h.env, AGENTD_DATA_DIR: h.dataDir };
    const command = 'echo again >> again.txt';
    const { session } = await h.runtime.createSession({
      backend: 'codex',
      prompt: `escalate ${command}`,
      cwd: h.cwd,
    });
    const interaction = await waitFor(
      async () => (await h.runtime.interactions({ sessionId: session.id, state: 'pending' }))[0],
      { what: 'the approval to be asked' },
    );
    const approved = await runCli(['approve', interaction.id, '--scope', 'session'], env);
    expect(approved.code, approved.stderr).toBe(0);
    let events = await readUntil(h.runtime, session.id, isEvent('work.settled'));
    expect(readFileSync(join(h.cwd, 'again.txt'), 'utf8')).toBe('again\n');

    await h.runtime.send(session.id, { text: `escalate ${command}` });
    events = await readUntil(h.runtime, session.id, isEvent('work.settled'), {
      after: events.at(-1)!.cursor,
    });
    const decided = events.find(isEvent('interaction.auto_decided'));
    expect(decided && dataOf(decided)).toMatchObject({
      toolName: 'shell',
      decision: 'approve',
      rule: { rule: `shell(${command})`, scope: 'session' },
    });
    expect(readFileSync(join(h.cwd, 'again.txt'), 'utf8')).toBe('again\nagain\n');
    expect((await h.runtime.interactions({ sessionId: session.id })).map((each) => each.id)).toEqual([
      interaction.id,
    ]);
  });
});
