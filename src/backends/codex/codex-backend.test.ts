import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultClaudeConfig } from '../../config/claude-config.js';
import {
  functionCallOutputs,
  type RecordedRequest,
  type Script,
  type ScriptedResponses,
  startScriptedResponses,
  userTexts,
} from '../../testing/index.js';
import { AsyncQueue } from '../../util/async-queue.js';
import type {
  AgentSession,
  PermissionDecision,
  PermissionRequest,
  SessionSpec,
  StartSessionOptions,
  UserInput,
} from '../agent-backend.js';
import type { AgentEvent } from '../agent-event.js';
import { CodexBackend } from './codex-backend.js';

// The backend against the real `codex` executable (`codex app-server`) and the scripted Responses
// server: text turns, commands codex really runs, resumed threads, interrupts, a 401 that fails at
// once, and approvals that codex asks for and agentd's `canUseTool` answers.

let root: string;
let workDir: string;
let model: ScriptedResponses | undefined;
let session: AgentSession | undefined;

afterEach(async () => {
  await session?.close();
  session = undefined;
  await model?.close();
  model = undefined;
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});

async function setup(script: Script, overrides: Partial<SessionSpec> = {}): Promise<SessionSpec> {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentd-codex-backend-')));
  workDir = join(root, 'work');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(workDir);
  await mkdir(join(root, 'codex-home'));
  model = await startScriptedResponses({ script });
  const defaults = defaultClaudeConfig();
  return {
    cwd: workDir,
    model: 'scripted-codex',
    env: { ...model.env(), CODEX_HOME: join(root, 'codex-home'), HOME: root },
    retry: { maxRetries: 1, initialDelayMs: 50, maxDelayMs: 100 },
    timeoutSeconds: defaults.timeoutSeconds,
    ...overrides,
  };
}

const input = (text: string): UserInput => ({ id: randomUUID(), text });

/** Runs one session over `prompts`, the next sent once the previous turn has ended. */
async function collect(
  spec: SessionSpec,
  prompts: UserInput[],
  onEvent?: (event: AgentEvent, session: AgentSession) => void,
  options: Partial<StartSessionOptions> = {},
): Promise<AgentEvent[]> {
  const inputs = new AsyncQueue<UserInput>();
  const pending = [...prompts];
  inputs.push(pending.shift()!);
  session = new CodexBackend().startSession({ ...options, spec, inputs });
  const events: AgentEvent[] = [];
  for await (const event of session) {
    events.push(event);
    onEvent?.(event, session);
    if (event.type === 'agent.turn.completed' || event.type === 'agent.error') {
      const next = pending.shift();
      if (next) inputs.push(next);
      else inputs.end();
    }
  }
  return events;
}

const types = (events: AgentEvent[]) => events.map((event) => event.type);

describe('CodexBackend', () => {
  it('a text turn: the thread starts, the input is delivered, the answer and its usage come back', async () => {
    const spec = await setup([
      { text: 'Hello from the scripted Responses API', usage: { input_tokens: 12, output_tokens: 7 } },
    ]);
    const prompt = input('say hello');
    const events = await collect(spec, [prompt]);
    const started = events.find((event) => event.type === 'session.started');
    expect(started).toMatchObject({ backend: 'codex', cwd: workDir, permissionMode: 'workspace-write' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'input.delivered', inputId: prompt.id }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'agent.message', text: 'Hello from the scripted Responses API' }),
    );
    const completed = events.find((event) => event.type === 'agent.turn.completed');
    expect(completed).toMatchObject({
      isError: false,
      inputIds: [prompt.id],
      result: 'Hello from the scripted Responses API',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const requests = model!.conversationRequests();
    expect(requests).toHaveLength(1);
    expect(userTexts(requests[0]!)).toContain('say hello');
    expect(requests[0]!.body?.model).toBe('scripted-codex');
    expect(requests[0]!.headers.authorization).toBe('Bearer scripted-responses-key');
  });

  it('a shell command call: codex really runs it in the working directory and returns its output', async () => {
    const spec = await setup([
      {
        content: [
          { type: 'tool_use', name: 'exec_command', input: { cmd: 'echo made > made.txt && echo ran-it' } },
        ],
      },
      { text: 'The command ran.' },
    ]);
    const events = await collect(spec, [input('run the command')]);
    const call = events.find((event) => event.type === 'agent.tool_call');
    expect(call).toMatchObject({ name: 'shell' });
    expect(call?.type === 'agent.tool_call' && call.detail).toContain('echo made > made.txt');
    const result = events.find((event) => event.type === 'agent.tool_result');
    expect(result).toMatchObject({ isError: false, content: expect.stringContaining('ran-it') });
    expect(await readFile(join(workDir, 'made.txt'), 'utf8')).toBe('made\n');
    const outputs = functionCallOutputs(model!.conversationRequests()[1]!);
    expect(outputs[0]?.output).toContain('ran-it');
    expect(types(events).at(-1)).toBe('agent.turn.completed');
  });

  it('a second turn continues the thread: the model sees the earlier turn', async () => {
    const spec = await setup([{ text: 'first answer' }, { text: 'second answer' }]);
    const events = await collect(spec, [input('first question'), input('second question')]);
    const completed = events.filter((event) => event.type === 'agent.turn.completed');
    expect(completed).toHaveLength(2);
    const second = model!.conversationRequests()[1]!;
    expect(userTexts(second)).toEqual(expect.arrayContaining(['first question', 'second question']));
    expect(JSON.stringify(second.body)).toContain('first answer');
  });

  it('a new session resumed by thread id carries the earlier turns', async () => {
    const spec = await setup([{ text: 'remembered: blue' }, { text: 'you said blue' }]);
    const first = await collect(spec, [input('my colour is blue')]);
    const threadId = first.find((event) => event.type === 'session.started');
    expect(threadId?.type === 'session.started' && threadId.sessionId).toBeTruthy();
    await session?.close();
    const resumed = await collect(
      { ...spec, resume: threadId?.type === 'session.started' ? threadId.sessionId : '' },
      [input('what is my colour?')],
    );
    expect(resumed.find((event) => event.type === 'session.started')).toMatchObject({
      sessionId: threadId?.type === 'session.started' ? threadId.sessionId : '',
    });
    const request = model!.conversationRequests()[1]!;
    expect(userTexts(request)).toEqual(expect.arrayContaining(['my colour is blue', 'what is my colour?']));
    expect(JSON.stringify(request.body)).toContain('remembered: blue');
  });

  it('interrupt: the turn ends with a cancelled error, and the thread takes the next turn', async () => {
    const spec = await setup((request) =>
      userTexts(request).at(-1) === 'next'
        ? { text: 'after the interrupt' }
        : { text: 'slow answer', delayMs: 20_000 },
    );
    let interrupted = false;
    const events = await collect(spec, [input('take your time'), input('next')], (event, live) => {
      if (event.type === 'input.delivered' && !interrupted) {
        interrupted = true;
        void live.interrupt();
      }
    });
    expect(events).toContainEqual({
      type: 'agent.error',
      error: expect.objectContaining({ code: 'cancelled' }),
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'agent.message', text: 'after the interrupt' }),
    );
  });

  it('a 401 fails the turn at once with an authentication error, not after codex retried it', async () => {
    const spec = await setup(() => ({ error: { status: 401, message: 'bad key' } }), {
      retry: { maxRetries: 3, initialDelayMs: 50, maxDelayMs: 100 },
    });
    const events = await collect(spec, [input('hello')]);
    expect(events.at(-1)).toMatchObject({
      type: 'agent.error',
      error: { code: 'authentication', status: 401, transient: false },
    });
    expect(events.some((event) => event.type === 'agent.retry')).toBe(false);
    // codex alone would have asked 1 + 3 times (its retries are agentd's count).
    expect(model!.conversationRequests().length).toBeLessThanOrEqual(2);
  });

  it('codex dying alone mid-turn: agentd retries on a new app-server, which resumes the thread and continues', async () => {
    const spec = await setup((request) =>
      (userTexts(request).at(-1) ?? '').startsWith('Continue where')
        ? { text: 'back again' }
        : { text: 'too slow', delayMs: 20_000 },
    );
    let killed = 0;
    const events = await collect(spec, [input('take your time')], (event) => {
      if (event.type !== 'input.delivered') return;
      void waitFor(() => model!.conversationRequests().length === 1).then(() => {
        for (const pid of codexChildren()) {
          process.kill(pid, 'SIGKILL');
          killed++;
        }
      });
    });
    expect(killed).toBe(1);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'agent.retry',
        by: 'agentd',
        error: expect.objectContaining({ code: 'network' }),
      }),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: 'agent.message', text: 'back again' }));
    // The retry continued the thread: the model saw the first prompt once, then the continue prompt.
    const last = model!.conversationRequests().at(-1)!;
    expect(userTexts(last).filter((text) => text === 'take your time')).toHaveLength(1);
    expect(types(events).at(-1)).toBe('agent.turn.completed');
  });

  it('a 500 is retried and the turn recovers', async () => {
    const spec = await setup([{ error: { status: 500 } }, { text: 'recovered' }]);
    const events = await collect(spec, [input('hello')]);
    expect(model!.conversationRequests()).toHaveLength(2);
    expect(events).toContainEqual(expect.objectContaining({ type: 'agent.message', text: 'recovered' }));
    expect(types(events).at(-1)).toBe('agent.turn.completed');
  });
});

/** A command that asks to leave the sandbox: in the default mode codex asks before it runs it. */
const escalated = (cmd: string) => ({
  content: [
    {
      type: 'tool_use' as const,
      name: 'exec_command',
      input: { cmd, sandbox_permissions: 'require_escalated', justification: 'the test needs it' },
    },
  ],
});

/** The `codex` processes this test process started (its app-servers). */
function codexChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && name === 'codex') pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function waitFor(probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const allow = async (request: PermissionRequest): Promise<PermissionDecision> => ({
  behavior: 'allow',
  updatedInput: request.input,
});

/** Never answers: the decision waits until the turn or the session ends. */
const waitForever = (asked: PermissionRequest[]) => (request: PermissionRequest) => {
  asked.push(request);
  return new Promise<PermissionDecision>((resolve) =>
    request.signal.addEventListener('abort', () => resolve({ behavior: 'deny', message: 'aborted' })),
  );
};

const toolUseOf = (events: AgentEvent[]) => {
  const call = events.find((event) => event.type === 'agent.tool_call');
  return call?.type === 'agent.tool_call' ? call.toolUseId : '';
};

describe('CodexBackend approvals', () => {
  const command = 'echo approved >> approved.txt && echo ran-it';
  const script = (request: RecordedRequest) =>
    functionCallOutputs(request).length > 0 ? { text: 'the command is done' } : escalated(command);

  it('codex asks before a command leaves the sandbox; canUseTool decides; approved, the command runs', async () => {
    const spec = await setup(script);
    const asked: PermissionRequest[] = [];
    const events = await collect(spec, [input('make the file')], undefined, {
      canUseTool: (request) => {
        asked.push(request);
        return allow(request);
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      toolName: 'shell',
      toolUseId: toolUseOf(events),
      input: { command, cwd: workDir, reason: 'the test needs it' },
    });
    const order = types(events);
    const handed = order.indexOf('agent.tool_permission');
    expect(handed).toBeGreaterThan(order.indexOf('agent.tool_call'));
    expect(handed).toBeLessThan(order.indexOf('agent.tool_result'));
    expect(events[handed]).toMatchObject({ toolUseId: toolUseOf(events), behavior: 'allow' });
    expect(events.find((event) => event.type === 'agent.tool_result')).toMatchObject({
      isError: false,
      content: expect.stringContaining('ran-it'),
    });
    expect(await readFile(join(workDir, 'approved.txt'), 'utf8')).toBe('approved\n');
    expect(order.at(-1)).toBe('agent.turn.completed');
  });

  it('denied: the command never runs, and the model gets the reason', async () => {
    const spec = await setup(script);
    const reason = 'Not in this directory, please.';
    const events = await collect(spec, [input('make the file')], undefined, {
      canUseTool: async () => ({ behavior: 'deny', message: reason }),
    });
    await expect(readFile(join(workDir, 'approved.txt'), 'utf8')).rejects.toThrow();
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'agent.tool_permission', behavior: 'deny' }),
    );
    expect(events.find((event) => event.type === 'agent.tool_result')).toMatchObject({ isError: true });
    const next = model!.conversationRequests()[1]!;
    expect(functionCallOutputs(next)[0]?.output).toContain('rejected');
    expect(userTexts(next).join('\n')).toContain(reason);
    expect(types(events).at(-1)).toBe('agent.turn.completed');
  });

  it('untrusted: every write asks, except what the allowed tools cover; without canUseTool it is declined', async () => {
    const spec = await setup(
      (request) => {
        const done = functionCallOutputs(request).length;
        if (done === 0)
          return {
            content: [{ type: 'tool_use', name: 'exec_command', input: { cmd: 'echo listed > listed.txt' } }],
          };
        if (done === 1)
          return {
            content: [{ type: 'tool_use', name: 'exec_command', input: { cmd: 'echo other > other.txt' } }],
          };
        return { text: 'both tried' };
      },
      {
        settings: { codex: { approvalPolicy: 'untrusted' } },
        allowedTools: ['shell(echo listed > listed.txt)'],
      },
    );
    const events = await collect(spec, [input('write two files')]);
    expect(await readFile(join(workDir, 'listed.txt'), 'utf8')).toBe('listed\n');
    await expect(readFile(join(workDir, 'other.txt'), 'utf8')).rejects.toThrow();
    const handed = events.filter((event) => event.type === 'agent.tool_permission');
    expect(handed.map((event) => event.type === 'agent.tool_permission' && event.behavior)).toEqual([
      'allow',
      'deny',
    ]);
  });

  it('interrupted while a person is asked: the request is withdrawn, the tool use ends unrun', async () => {
    const spec = await setup(script);
    const asked: PermissionRequest[] = [];
    const events = await collect(
      spec,
      [input('make the file')],
      (event, live) => {
        if (event.type === 'agent.tool_call')
          void waitFor(() => asked.length > 0).then(() => live.interrupt());
      },
      { canUseTool: waitForever(asked) },
    );
    expect(asked[0]?.signal.aborted).toBe(true);
    expect(events).toContainEqual({
      type: 'agent.error',
      error: expect.objectContaining({ code: 'cancelled' }),
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'agent.tool_result', toolUseId: toolUseOf(events), isError: true }),
    );
    expect(types(events)).not.toContain('agent.tool_permission');
    await expect(readFile(join(workDir, 'approved.txt'), 'utf8')).rejects.toThrow();
  });

  it('a tool use the process that asked left waiting: approved later, it runs once and its output is the call’s', async () => {
    const spec = await setup((request) =>
      functionCallOutputs(request).length > 0 ? { text: 'continued after the approval' } : escalated(command),
    );
    const asked: PermissionRequest[] = [];
    // The first process asks, and goes (closed, as a dying worker's would be) before anyone answers.
    const first = await collect(
      spec,
      [input('make the file')],
      (event, live) => {
        if (event.type === 'agent.tool_call') void waitFor(() => asked.length > 0).then(() => live.close());
      },
      { canUseTool: waitForever(asked) },
    );
    const toolUseId = toolUseOf(first);
    expect(first.some((event) => event.type === 'agent.tool_result')).toBe(false);
    const started = first.find((event) => event.type === 'session.started');
    const threadId = started?.type === 'session.started' ? started.sessionId : '';

    const decided: string[] = [];
    const second = await collect(
      { ...spec, resume: threadId },
      [{ id: randomUUID(), text: '', continueDeferred: true }],
      undefined,
      {
        waitingToolUses: [{ toolUseId, toolName: 'shell', input: asked[0]!.input, handedOver: null }],
        resumeDeferredTool: async (id) => {
          decided.push(id);
          return { behavior: 'allow' };
        },
      },
    );
    expect(decided).toEqual([toolUseId]);
    expect(second).toContainEqual(
      expect.objectContaining({ type: 'agent.tool_permission', toolUseId, behavior: 'allow' }),
    );
    expect(second.find((event) => event.type === 'agent.tool_result')).toMatchObject({
      toolUseId,
      isError: false,
      content: expect.stringContaining('ran-it'),
    });
    expect(await readFile(join(workDir, 'approved.txt'), 'utf8')).toBe('approved\n');
    const last = model!.conversationRequests().at(-1)!;
    expect(functionCallOutputs(last)).toEqual([
      { callId: toolUseId, output: expect.stringContaining('ran-it') },
    ]);
    expect(types(second).at(-1)).toBe('agent.turn.completed');
  });

  it('a tool use whose approval was already handed over is never run again: the model is told its result is unknown', async () => {
    const spec = await setup((request) =>
      functionCallOutputs(request).length > 0 ? { text: 'checked' } : escalated(command),
    );
    const asked: PermissionRequest[] = [];
    const first = await collect(
      spec,
      [input('make the file')],
      (event, live) => {
        if (event.type === 'agent.tool_call') void waitFor(() => asked.length > 0).then(() => live.close());
      },
      { canUseTool: waitForever(asked) },
    );
    const toolUseId = toolUseOf(first);
    const started = first.find((event) => event.type === 'session.started');
    const second = await collect(
      { ...spec, resume: started?.type === 'session.started' ? started.sessionId : '' },
      [{ id: randomUUID(), text: '', continueDeferred: true }],
      undefined,
      {
        waitingToolUses: [{ toolUseId, toolName: 'shell', input: asked[0]!.input, handedOver: 'allow' }],
        resumeDeferredTool: async () => {
          throw new Error('not asked again');
        },
      },
    );
    await expect(readFile(join(workDir, 'approved.txt'), 'utf8')).rejects.toThrow();
    expect(second.find((event) => event.type === 'agent.tool_result')).toMatchObject({
      toolUseId,
      isError: true,
    });
    const output = functionCallOutputs(model!.conversationRequests().at(-1)!)[0];
    expect(output).toMatchObject({
      callId: toolUseId,
      output: expect.stringContaining('may or may not have run'),
    });
  });
});
