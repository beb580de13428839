import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Message,
  type Part,
  Role,
  type SendMessageConfiguration,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskState,
  taskStateToJSON,
} from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/runtime.js';
import { SqliteA2aStore } from '../../src/store/sqlite/sqlite-a2a-store.js';
import {
  type RecordedRequest,
  requestText,
  type ScriptedModel,
  type ScriptTurn,
  startScriptedModel,
  toolResults,
} from '../../src/testing/index.js';
import { type A2aTestServer, startA2aServer, startRecordingProxy, stopAllWorkers } from './a2a-harness.js';
import { isolatedEnv } from './isolated-env.js';

// A2A as a client sees it: the @a2a-js/sdk client (JSON-RPC and HTTP+JSON) and raw v0.3 JSON-RPC,
// against mountA2a on a real HTTP server, a real runtime and store, detached workers running the
// real SDK and `claude`, and the scripted model.

/** Waits for `probe` to return a truthy value, failing at the deadline (never asserting on time). */
async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 45_000,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// ---- the scripted model -------------------------------------------------------------------------

let workDir = '';

function blocksOf(content: unknown): Array<Record<string, unknown>> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as Array<Record<string, unknown>>) : [];
}

/** What the person said last (tool results and system reminders are not what they said). */
function lastUserText(request: RecordedRequest): string {
  const messages = request.body?.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    const text = blocksOf(message.content)
      .filter(
        (block) =>
          block.type === 'text' &&
          !String(block.text ?? '')
            .trimStart()
            .startsWith('<system-reminder>'),
      )
      .map((block) => String(block.text ?? ''))
      .join('\n')
      .trim();
    if (text) return text;
  }
  return '';
}

/** The tool whose result the request carries back, when it does. */
function answeredTool(request: RecordedRequest): { name: string; isError: boolean } | undefined {
  const messages = request.body?.messages ?? [];
  const result = blocksOf(messages.at(-1)?.content).find((block) => block.type === 'tool_result');
  if (!result) return undefined;
  const call = blocksOf(messages.at(-2)?.content).find(
    (block) => block.type === 'tool_use' && block.id === result.tool_use_id,
  );
  return { name: String(call?.name ?? ''), isError: result.is_error === true };
}

const toolUse = (name: string, input: Record<string, unknown>): ScriptTurn => ({
  content: [{ type: 'tool_use', name, input }],
});
const slowText = (words: number) => ({
  text: 'slowly '.repeat(words).trim(),
  chunkSize: 4,
  chunkDelayMs: 100,
});

/**
 * `say X` echoes; `read F` reads a file (allowed); `touch F` runs Bash (needs an approval); `chain`
 * reads notes.txt and then touches chained.txt; `ask` asks a question; `slow N` streams N words
 * slowly. After a tool, it reports the tool and whether it failed.
 */
function script(request: RecordedRequest): ScriptTurn {
  const said = lastUserText(request);
  const tool = answeredTool(request);
  if (tool) {
    if (said.startsWith('chain') && tool.name === 'Read')
      return toolUse('Bash', { command: 'touch chained.txt' });
    return {
      text: `after ${tool.name}: ${tool.isError ? 'refused' : 'done'}`,
      usage: { input_tokens: 7, output_tokens: 3 },
    };
  }
  const argument = said.split(/\s+/)[1] ?? '';
  if (said.startsWith('say '))
    return { text: `echo: ${said.slice(4)}`, usage: { input_tokens: 1234, output_tokens: 56 } };
  if (said.startsWith('read ')) return toolUse('Read', { file_path: join(workDir, argument) });
  if (said.startsWith('touch ')) return toolUse('Bash', { command: `touch ${argument}` });
  if (said.startsWith('chain')) return toolUse('Read', { file_path: join(workDir, 'notes.txt') });
  if (said.startsWith('slow ')) return slowText(Number(argument) || 100);
  if (said.startsWith('ask')) {
    return toolUse('AskUserQuestion', {
      questions: [
        {
          question: 'Which colour?',
          header: 'Colour',
          options: [
            { label: 'red', description: 'warm' },
            { label: 'blue', description: 'cool' },
          ],
          multiSelect: false,
        },
      ],
    });
  }
  return { text: `unknown: ${said}` };
}

// ---- A2A helpers ------------------------------------------------------------------------------

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});
const dataPart = (data: Record<string, unknown>): Part => ({
  content: { $case: 'data', value: data },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

function userMessage(
  parts: Part[] | string,
  options: { contextId?: string; taskId?: string; messageId?: string } = {},
): Message {
  return {
    messageId: options.messageId ?? randomUUID(),
    contextId: options.contextId ?? '',
    taskId: options.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(
  message: Message,
  configuration: Partial<SendMessageConfiguration> = {},
): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...configuration,
    },
    metadata: undefined,
  };
}

// biome-ignore lint/suspicious/noExplicitAny: v0.3 wire JSON, read field by field in assertions
type WireJson = any;

const stateOf = (task: Task | undefined) =>
  taskStateToJSON(task?.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);

function dataOf(parts: Part[] | undefined): Array<Record<string, unknown>> {
  return (parts ?? []).flatMap((part) =>
    part.content?.$case === 'data' ? [part.content.value as Record<string, unknown>] : [],
  );
}

function textsOf(parts: Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
}

/** A compact view of a stream, for assertions: states, tool DataParts, artifacts. */
function describeEvent(response: StreamResponse): string {
  const payload = response.payload!;
  switch (payload.$case) {
    case 'task':
      return `task ${stateOf(payload.value)}`;
    case 'message':
      return 'message';
    case 'artifactUpdate':
      return `artifact ${textsOf(payload.value.artifact?.parts)}`;
    case 'statusUpdate': {
      const status = payload.value.status;
      const data = dataOf(status?.message?.parts).map((item) =>
        item.name === 'adk_request_confirmation'
          ? 'confirm'
          : 'response' in item
            ? `result ${String(item.name)}`
            : `call ${String(item.name)}`,
      );
      return [taskStateToJSON(status?.state ?? 0), ...data].join(' ');
    }
  }
}

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const taskOf = (events: StreamResponse[]) => {
  const first = events[0]?.payload;
  return first?.$case === 'task' ? first.value : undefined;
};

// ---- fixtures -----------------------------------------------------------------------------------

let root = '';
let model: ScriptedModel;
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let server: A2aTestServer;
const clients: Record<'JSONRPC' | 'HTTP+JSON', Client> = {} as never;
let env: Record<string, string | undefined>;

async function clientFor(url: string, transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  return factory.createFromUrl(url);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentd-a2a-'));
  workDir = join(root, 'work');
  mkdirSync(workDir);
  writeFileSync(join(workDir, 'notes.txt'), 'the notes say hello\n');
  model = await startScriptedModel({ script });
  proxy = await startRecordingProxy(model.url);
  env = isolatedEnv(root, proxy.env());
  server = await startA2aServer({
    dataDir: join(root, 'data'),
    env,
    cwd: workDir,
    config: { allowedTools: ['Read'] },
  });
  clients.JSONRPC = await clientFor(server.url, 'JSONRPC');
  clients['HTTP+JSON'] = await clientFor(server.url, 'HTTP+JSON');
});

afterAll(async () => {
  if (server) {
    await stopAllWorkers(server.runtime);
    await server.close();
  }
  await proxy?.close();
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The conversation requests the model got for a prompt (its first request and any after tools). */
const requestsFor = (prompt: string) =>
  model.conversationRequests().filter((request) => lastUserText(request) === prompt);

/** The model's streamed answers to a prompt, as the proxy saw them. */
const modelStreamsFor = (prompt: string) =>
  proxy.streams.filter((stream) => {
    if (!stream.path.startsWith('/v1/messages')) return false;
    try {
      const body = JSON.parse(stream.body) as RecordedRequest['body'];
      const tools = body?.tools ?? [];
      return (
        body?.stream === true && tools.length > 0 && lastUserText({ body } as RecordedRequest) === prompt
      );
    } catch {
      return false;
    }
  });

const completed = (task: Task) => stateOf(task) === 'TASK_STATE_COMPLETED';

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('over %s', (transport) => {
  it('SendMessage (blocking) ends COMPLETED with the answer as an artifact and usage in the metadata', async () => {
    const client = clients[transport];
    const task = (await client.sendMessage(sendRequest(userMessage(`say hello over ${transport}`)))) as Task;
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts.map((artifact) => textsOf(artifact.parts))).toEqual([
      `echo: hello over ${transport}`,
    ]);
    expect(task.metadata).toMatchObject({
      'kagent.claude.input_tokens': 1234,
      'kagent.claude.output_tokens': 56,
      'kagent.claude.total_tokens': 1290,
      'kagent.claude.num_turns': 1,
    });
    expect(task.metadata?.['kagent.claude.total_cost_usd']).toBeGreaterThan(0);
    expect(typeof task.metadata?.['kagent.claude.duration_api_ms']).toBe('number');
    expect(textsOf(task.history[0]?.parts)).toBe(`say hello over ${transport}`);
  });

  it('SendMessageStream: SUBMITTED, WORKING, tool call and result as kagent DataParts, the artifact, COMPLETED', async () => {
    const events = await collect(
      clients[transport].sendMessageStream(sendRequest(userMessage('read notes.txt'))),
    );
    expect(events.map(describeEvent)).toEqual([
      'task TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING call Read',
      'TASK_STATE_WORKING result Read',
      'TASK_STATE_WORKING',
      'artifact after Read: done',
      'TASK_STATE_COMPLETED',
    ]);
    const parts = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? (event.payload.value.status?.message?.parts ?? []) : [],
    );
    const call = parts.find(
      (part) => dataOf([part])[0]?.name === 'Read' && !('response' in dataOf([part])[0]!),
    );
    const result = parts.find((part) => 'response' in (dataOf([part])[0] ?? {}));
    expect(call?.metadata).toEqual({ kagent_type: 'function_call' });
    expect(dataOf([call!])[0]).toEqual({
      name: 'Read',
      args: { file_path: join(workDir, 'notes.txt') },
      id: expect.stringMatching(/^toolu_/),
    });
    expect(result?.metadata).toEqual({ kagent_type: 'function_response' });
    expect(dataOf([result!])[0]).toMatchObject({
      id: dataOf([call!])[0]!.id,
      name: 'Read',
      response: { result: expect.stringContaining('the notes say hello'), isError: false },
    });
  });

  it('GetTask and ListTasks find tasks, by context, page by page', async () => {
    const client = clients[transport];
    const contextId = randomUUID();
    const one = (await client.sendMessage(sendRequest(userMessage('say one', { contextId })))) as Task;
    const two = (await client.sendMessage(sendRequest(userMessage('say two', { contextId })))) as Task;
    const got = await client.getTask({ tenant: '', id: one.id });
    expect([got.id, got.contextId, stateOf(got)]).toEqual([one.id, contextId, 'TASK_STATE_COMPLETED']);
    expect(textsOf(got.artifacts[0]?.parts)).toBe('echo: one');

    const list = (pageToken = '') =>
      client.listTasks({
        tenant: '',
        contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 1,
        pageToken,
        statusTimestampAfter: undefined,
        includeArtifacts: true,
      });
    const first = await list();
    expect([first.tasks.map((task) => task.id), first.totalSize]).toEqual([[two.id], 2]);
    expect(textsOf(first.tasks[0]?.artifacts[0]?.parts)).toBe('echo: two');
    expect(first.nextPageToken).not.toBe('');
    const second = await list(first.nextPageToken);
    expect([second.tasks.map((task) => task.id), second.nextPageToken]).toEqual([[one.id], '']);
    const completedOnly = await client.listTasks({
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: '',
      statusTimestampAfter: undefined,
    });
    expect(completedOnly.tasks.map((task) => task.id).sort()).toEqual([one.id, two.id].sort());
    expect(completedOnly.tasks.every((task) => task.artifacts.length === 0)).toBe(true);
  });

  it('SendMessage with returnImmediately answers with the submitted task; it completes in the background', async () => {
    const client = clients[transport];
    const task = (await client.sendMessage(
      sendRequest(userMessage(`say later over ${transport}`), { returnImmediately: true }),
    )) as Task;
    expect(stateOf(task)).toBe('TASK_STATE_SUBMITTED');
    const done = await waitFor(async () => {
      const latest = await client.getTask({ tenant: '', id: task.id });
      return completed(latest) && latest;
    }, 'the task to complete');
    expect(textsOf(done.artifacts[0]?.parts)).toBe(`echo: later over ${transport}`);
  });
});

describe('tasks that run long, wait for people, or continue', () => {
  it('CancelTask interrupts the running turn: the task ends CANCELED and claude cut the model stream', async () => {
    const prompt = 'slow 150';
    const iterator = clients.JSONRPC.sendMessageStream(sendRequest(userMessage(prompt)))[
      Symbol.asyncIterator
    ]();
    const task = taskOf([(await iterator.next()).value as StreamResponse])!;
    const rest = (async () => {
      const events: StreamResponse[] = [];
      for (let next = await iterator.next(); !next.done; next = await iterator.next())
        events.push(next.value);
      return events;
    })();
    const stream = await waitFor(
      () => modelStreamsFor(prompt).find((each) => each.outcome === 'pending'),
      'the model to stream',
    );

    const canceled = await clients.JSONRPC.cancelTask({ tenant: '', id: task.id, metadata: {} });
    expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');
    expect(canceled.artifacts).toEqual([]);
    await waitFor(() => stream.outcome !== 'pending', 'the model stream to end');
    expect(stream.outcome).toBe('cut');
    expect(describeEvent((await rest).at(-1)!)).toBe('TASK_STATE_CANCELED');
    const sessionId = String(canceled.metadata?.['agentd.sessionId']);
    const errors: unknown[] = [];
    for await (const event of server.runtime.events(sessionId))
      if (event.type === 'agent.error') errors.push(event.data);
    expect(errors).toMatchObject([{ error: { code: 'cancelled' } }]);
    await expect(
      clients.JSONRPC.cancelTask({ tenant: '', id: task.id, metadata: {} }),
    ).resolves.toMatchObject({
      id: task.id,
    });
  });

  it('a tool that needs approval: INPUT_REQUIRED with adk_request_confirmation; approve runs it', async () => {
    const client = clients['HTTP+JSON'];
    const waiting = (await client.sendMessage(sendRequest(userMessage('touch approved.txt')))) as Task;
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const confirmation = dataOf(waiting.status?.message?.parts).find(
      (data) => data.name === 'adk_request_confirmation',
    );
    expect(confirmation).toEqual({
      name: 'adk_request_confirmation',
      id: expect.any(String),
      args: {
        originalFunctionCall: {
          name: 'Bash',
          args: { command: 'touch approved.txt' },
          id: expect.stringMatching(/^toolu_/),
        },
        toolConfirmation: { hint: "Tool 'Bash' requires approval before execution.", confirmed: false },
      },
    });
    const pending = await server.runtime.interactions({ state: 'pending' });
    expect(pending.map((interaction) => interaction.id)).toContain(confirmation!.id);
    expect(existsSync(join(workDir, 'approved.txt'))).toBe(false);

    const reply = userMessage([dataPart({ decision_type: 'approve' })], {
      taskId: waiting.id,
      contextId: waiting.contextId,
    });
    const done = (await client.sendMessage(sendRequest(reply))) as Task;
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    expect(textsOf(done.artifacts[0]?.parts)).toBe('after Bash: done');
    expect(existsSync(join(workDir, 'approved.txt'))).toBe(true);
    expect((await server.runtime.store.getInteraction(String(confirmation!.id)))?.answer).toEqual({
      decision: 'approve',
    });
  });

  it('CancelTask on a task waiting for an approval: CANCELED, the approval denied, the tool never run', async () => {
    const client = clients['HTTP+JSON'];
    const waiting = (await client.sendMessage(sendRequest(userMessage('touch canceled.txt')))) as Task;
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const confirmation = dataOf(waiting.status?.message?.parts).find(
      (data) => data.name === 'adk_request_confirmation',
    );
    const canceled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: {} });
    expect(stateOf(canceled)).toBe('TASK_STATE_CANCELED');
    expect((await server.runtime.store.getInteraction(String(confirmation?.id)))?.answer).toEqual({
      decision: 'deny',
      reason: 'The task was canceled.',
    });
    const sessionId = String(canceled.metadata?.['agentd.sessionId']);
    const ended = await waitFor(async () => {
      for await (const event of server.runtime.events(sessionId))
        if (event.type === 'agent.error') return (event.data as { error: { code: string } }).error.code;
      return undefined;
    }, 'the interrupted turn to end');
    expect(ended).toBe('cancelled');
    expect(existsSync(join(workDir, 'canceled.txt'))).toBe(false);
    expect(stateOf(await client.getTask({ tenant: '', id: waiting.id }))).toBe('TASK_STATE_CANCELED');
  });

  it('reject: the model is told the rejection reason and the tool does not run', async () => {
    const client = clients.JSONRPC;
    const waiting = (await client.sendMessage(sendRequest(userMessage('touch rejected.txt')))) as Task;
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const reason = 'Not in this directory, please.';
    const reply = userMessage([dataPart({ decision_type: 'reject', rejection_reason: reason })], {
      taskId: waiting.id,
      contextId: waiting.contextId,
    });
    const done = (await client.sendMessage(sendRequest(reply))) as Task;
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    expect(textsOf(done.artifacts[0]?.parts)).toBe('after Bash: refused');
    expect(existsSync(join(workDir, 'rejected.txt'))).toBe(false);
    const afterTool = requestsFor('touch rejected.txt').at(-1)!;
    expect(toolResults(afterTool)).toEqual([
      { toolUseId: expect.any(String), content: expect.stringContaining(reason), isError: true },
    ]);
  });

  it('AskUserQuestion: INPUT_REQUIRED with the question; ask_user_answers answers it', async () => {
    const client = clients.JSONRPC;
    const waiting = (await client.sendMessage(sendRequest(userMessage('ask me')))) as Task;
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const confirmation = dataOf(waiting.status?.message?.parts).find(
      (data) => data.name === 'adk_request_confirmation',
    );
    expect(confirmation).toMatchObject({
      args: {
        originalFunctionCall: { name: 'AskUserQuestion' },
        toolConfirmation: { hint: 'Claude asks: Which colour?', confirmed: false },
      },
    });
    const reply = userMessage([dataPart({ ask_user_answers: { 'Which colour?': 'blue' } })], {
      taskId: waiting.id,
      contextId: waiting.contextId,
    });
    const done = (await client.sendMessage(sendRequest(reply))) as Task;
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    const afterTool = requestsFor('ask me').at(-1)!;
    expect(toolResults(afterTool)[0]).toMatchObject({
      isError: false,
      content: expect.stringContaining('"Which colour?"="blue"'),
    });
  });

  it("the same contextId continues the same agentd session (its channel's): the model sees the first turn", async () => {
    const client = clients['HTTP+JSON'];
    const contextId = randomUUID();
    const one = (await client.sendMessage(
      sendRequest(userMessage('say first words', { contextId })),
    )) as Task;
    const two = (await client.sendMessage(
      sendRequest(userMessage('say second words', { contextId })),
    )) as Task;
    expect([stateOf(one), stateOf(two)]).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
    expect(two.metadata?.['agentd.sessionId']).toBe(one.metadata?.['agentd.sessionId']);
    const seen = requestText(requestsFor('say second words')[0]!);
    expect(seen).toContain('say first words');
    expect(seen).toContain('echo: first words');
    const channel = await server.runtime.channels.get(`a2a:${contextId}`);
    expect(channel.session?.id).toBe(one.metadata?.['agentd.sessionId']);
  });

  it('a repeated messageId is the same input: no second turn; other text with it is refused', async () => {
    const client = clients.JSONRPC;
    const contextId = randomUUID();
    const messageId = randomUUID();
    const prompt = `say once ${messageId}`;
    const first = (await client.sendMessage(
      sendRequest(userMessage(prompt, { contextId, messageId })),
    )) as Task;
    const again = (await client.sendMessage(
      sendRequest(userMessage(prompt, { contextId, messageId })),
    )) as Task;
    expect([stateOf(first), stateOf(again)]).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
    expect(textsOf(again.artifacts[0]?.parts)).toBe(textsOf(first.artifacts[0]?.parts));
    const sessionId = String(first.metadata?.['agentd.sessionId']);
    const inputs = await server.runtime.listInputs(sessionId);
    expect(inputs.filter((input) => input.messageId === messageId)).toHaveLength(1);
    expect(requestsFor(prompt)).toHaveLength(1);

    await expect(
      client.sendMessage(sendRequest(userMessage('say something else', { contextId, messageId }))),
    ).rejects.toThrow(/already used/);
    expect(await server.runtime.listInputs(sessionId)).toHaveLength(inputs.length);
  });

  it('SubscribeToTask after a disconnect replays the task from the journal: nothing is missed', async () => {
    const client = clients.JSONRPC;
    const seen: StreamResponse[] = [];
    const controller = new AbortController();
    for await (const event of client.sendMessageStream(sendRequest(userMessage('chain')), {
      signal: controller.signal,
    })) {
      seen.push(event);
      if (describeEvent(event) === 'TASK_STATE_WORKING call Read') break;
    }
    controller.abort();
    const task = taskOf(seen)!;
    await waitFor(
      async () => stateOf(await client.getTask({ tenant: '', id: task.id })) === 'TASK_STATE_INPUT_REQUIRED',
      'the task to wait for an approval',
    );

    const replay = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
    expect(replay.map(describeEvent)).toEqual([
      'task TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING call Read',
      'TASK_STATE_WORKING result Read',
      'TASK_STATE_WORKING call Bash',
      'TASK_STATE_INPUT_REQUIRED confirm',
    ]);
    const messageIds = (events: StreamResponse[]) =>
      events.flatMap((event) =>
        event.payload?.$case === 'statusUpdate' && event.payload.value.status?.message
          ? [event.payload.value.status.message.messageId]
          : [],
      );
    // What the first stream saw is the start of the replay, with the same ids.
    expect(messageIds(replay).slice(0, messageIds(seen).length)).toEqual(messageIds(seen));

    const approve = userMessage([dataPart({ decision_type: 'approve' })], {
      taskId: task.id,
      contextId: task.contextId,
    });
    const after = await collect(client.sendMessageStream(sendRequest(approve)));
    expect(after.map(describeEvent)).toEqual([
      'task TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING result Bash',
      'TASK_STATE_WORKING',
      'artifact after Bash: done',
      'TASK_STATE_COMPLETED',
    ]);
    expect(existsSync(join(workDir, 'chained.txt'))).toBe(true);
    const final = await client.getTask({ tenant: '', id: task.id });
    const stored = final.history.map((message) => message.messageId);
    for (const id of [...messageIds(replay), ...messageIds(after)]) expect(stored).toContain(id);
  });

  it('a message without text, or on a task that is still working, is refused and changes nothing', async () => {
    const client = clients['HTTP+JSON'];
    const count = async () =>
      (
        await client.listTasks({
          tenant: '',
          contextId: '',
          status: 0,
          pageToken: '',
          statusTimestampAfter: undefined,
        })
      ).totalSize;
    const before = await count();
    await expect(client.sendMessage(sendRequest(userMessage(' ')))).rejects.toThrow(/no text/);
    expect(await count()).toBe(before);

    const working = (await client.sendMessage(
      sendRequest(userMessage('slow 100'), { returnImmediately: true }),
    )) as Task;
    const followUp = userMessage('say meanwhile', { taskId: working.id, contextId: working.contextId });
    await expect(client.sendMessage(sendRequest(followUp))).rejects.toThrow(/still working/);
    expect(await count()).toBe(before + 1);
    expect(requestsFor('say meanwhile')).toEqual([]);
    await expect(client.cancelTask({ tenant: '', id: working.id, metadata: {} })).resolves.toMatchObject({
      id: working.id,
    });
  });
});

describe('kagent and v0.3 clients', () => {
  const rpc = async (method: string, params: unknown) => {
    const response = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      result?: Record<string, WireJson>;
      error?: { code: number; message: string };
    };
  };
  const legacyMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    message: { kind: 'message', messageId: randomUUID(), role: 'user', parts, ...extra },
  });

  it('the agent card: v0.3 form without A2A-Version, v1.0 with it', async () => {
    const legacy = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      WireJson
    >;
    expect(legacy).toMatchObject({
      name: 'agentd-test',
      url: `${server.url}/`,
      protocolVersion: '0.3',
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: true, pushNotifications: true },
    });
    const v1 = (await (
      await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })
    ).json()) as Record<string, WireJson>;
    expect(v1.url).toBeUndefined();
    const older = (await (await fetch(`${server.url}/.well-known/agent.json`)).json()) as Record<
      string,
      WireJson
    >;
    expect(older).toEqual(legacy);
    expect(v1.supportedInterfaces).toEqual([
      { url: `${server.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${server.url}/a2a/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: `${server.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
  });

  it('message/send and tasks/get with v0.3 names and shapes, as kagent’s controller sends them', async () => {
    const sent = await rpc('message/send', legacyMessage([{ kind: 'text', text: 'say legacy' }]));
    expect(sent.error).toBeUndefined();
    expect(sent.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'text', text: 'echo: legacy' }] }],
      metadata: { 'kagent.claude.input_tokens': 1234, 'kagent.claude.total_tokens': 1290 },
    });
    const got = await rpc('tasks/get', { id: sent.result!.id });
    expect(got.result).toMatchObject({ id: sent.result!.id, kind: 'task', status: { state: 'completed' } });
  });

  it('message/stream over v0.3: SSE of v0.3 events, the last one final and completed', async () => {
    const response = await fetch(`${server.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'stream-1',
        method: 'message/stream',
        params: legacyMessage([{ kind: 'text', text: 'say streamed legacy' }]),
      }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => (JSON.parse(line.slice(6)) as { id: string; result: Record<string, WireJson> }).result);
    expect(events.map((event) => [event.kind, event.status?.state ?? null])).toEqual([
      ['task', 'submitted'],
      ['status-update', 'working'],
      ['status-update', 'working'],
      ['artifact-update', null],
      ['status-update', 'completed'],
    ]);
    expect(events.at(-1)).toMatchObject({ final: true, metadata: { 'kagent.claude.output_tokens': 56 } });
    expect(events[3]?.artifact?.parts).toEqual([{ kind: 'text', text: 'echo: streamed legacy' }]);
  });

  it('kagent’s HITL round trip over v0.3: input-required with the confirmation DataPart, then a batch decision', async () => {
    const sent = await rpc('message/send', legacyMessage([{ kind: 'text', text: 'touch batch.txt' }]));
    expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'input-required' } });
    const part = (sent.result!.status.message.parts as Array<Record<string, WireJson>>).find(
      (each) => each.kind === 'data' && each.data.name === 'adk_request_confirmation',
    )!;
    expect(part.metadata).toMatchObject({ kagent_type: 'function_call', kagent_is_long_running: true });
    const toolUseId = String(part.data.args.originalFunctionCall.id);
    const reason = 'The batch says no.';
    const answered = await rpc(
      'message/send',
      legacyMessage(
        [
          {
            kind: 'data',
            data: {
              decision_type: 'batch',
              decisions: { [toolUseId]: 'reject' },
              rejection_reasons: { [toolUseId]: reason },
            },
          },
        ],
        { taskId: sent.result!.id, contextId: sent.result!.contextId },
      ),
    );
    expect(answered.result).toMatchObject({
      kind: 'task',
      status: { state: 'completed' },
      artifacts: [{ parts: [{ kind: 'text', text: 'after Bash: refused' }] }],
    });
    expect(existsSync(join(workDir, 'batch.txt'))).toBe(false);
    expect(toolResults(requestsFor('touch batch.txt').at(-1)!)[0]?.content).toContain(reason);
  });
});

describe('push notifications', () => {
  let hook: Server;
  let hookUrl = '';
  const deliveries: Array<{ path: string; token: string | undefined; body: string }> = [];
  let refusals = 0;

  beforeAll(async () => {
    hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        // The first two deliveries fail: the sender must try again.
        if (refusals < 2) {
          refusals++;
          response.writeHead(503).end();
          return;
        }
        const token = request.headers['x-a2a-notification-token'];
        deliveries.push({
          path: request.url ?? '',
          token: typeof token === 'string' ? token : undefined,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', () => resolve()));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });

  afterAll(async () => {
    hook.closeAllConnections();
    await new Promise<void>((resolve) => hook.close(() => resolve()));
  });

  it('configs are set, read, listed and deleted; deliveries are retried until the webhook takes them', async () => {
    const client = clients['HTTP+JSON'];
    const config = {
      tenant: '',
      id: 'hook-1',
      taskId: '',
      url: hookUrl,
      token: 'push-token',
      authentication: undefined,
    };
    const task = (await client.sendMessage(
      sendRequest(userMessage('say pushed'), { returnImmediately: true, taskPushNotificationConfig: config }),
    )) as Task;
    await waitFor(
      () => deliveries.some((each) => each.body.includes('TASK_STATE_COMPLETED')),
      'the completion push',
    );
    expect(refusals).toBe(2);
    expect(deliveries.every((each) => each.token === 'push-token' && each.path === '/hook')).toBe(true);
    const bodies = deliveries.map((each) => JSON.parse(each.body) as Record<string, WireJson>);
    expect(bodies[0]?.task?.id).toBe(task.id);
    expect(bodies.at(-1)?.statusUpdate).toMatchObject({
      taskId: task.id,
      status: { state: 'TASK_STATE_COMPLETED' },
    });
    expect(bodies.some((body) => body.artifactUpdate?.artifact?.parts?.[0]?.text === 'echo: pushed')).toBe(
      true,
    );

    const second = { ...config, id: 'hook-2', taskId: task.id, url: `${hookUrl}/second`, token: '' };
    await client.createTaskPushNotificationConfig(second);
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((each) => each.id)).toEqual(['hook-1', 'hook-2']);
    expect(
      await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-2' }),
    ).toMatchObject({
      url: `${hookUrl}/second`,
    });
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
    const left = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(left.configs.map((each) => each.id)).toEqual(['hook-2']);
    expect((await server.store.listA2aPushConfigs(task.id)).map((each) => each.id)).toEqual(['hook-2']);
  });
});

describe('a server that dies during a task', () => {
  /** Starts a streamed task on `instance` and returns it once the model is streaming its answer. */
  async function startTask(instance: A2aTestServer, prompt: string): Promise<Task> {
    const client = await clientFor(instance.url, 'JSONRPC');
    const iterator = client.sendMessageStream(sendRequest(userMessage(prompt)))[Symbol.asyncIterator]();
    const task = taskOf([(await iterator.next()).value as StreamResponse])!;
    // The stream dies with the server; what it would have said is the task store's business now.
    void (async () => {
      try {
        for (let next = await iterator.next(); !next.done; next = await iterator.next());
      } catch {}
    })();
    await waitFor(
      () => modelStreamsFor(prompt).some((each) => each.outcome === 'pending'),
      'the model to stream',
    );
    return task;
  }

  async function storedTask(dataDir: string, taskId: string) {
    const observer = SqliteA2aStore.open({ path: join(dataDir, 'agentd.db') });
    try {
      return await observer.getA2aTask(taskId);
    } finally {
      await observer.close();
    }
  }

  it('a turn that ended while no server ran completes its task at the next start', async () => {
    const dataDir = join(root, 'data-restart-1');
    const first = await startA2aServer({ dataDir, env, cwd: workDir });
    const prompt = 'slow 30 finished offline';
    const task = await startTask(first, prompt);
    await first.close();

    const left = await storedTask(dataDir, task.id);
    expect(left?.state).toBe('TASK_STATE_WORKING');
    const sessionId = String(
      (left?.task.metadata as Record<string, unknown> | undefined)?.['agentd.sessionId'],
    );
    const observer = await createRuntime({ dataDir, env });
    await waitFor(async () => {
      for await (const event of observer.events(sessionId))
        if (event.type === 'agent.turn.completed') return true;
      return false;
    }, 'the detached worker to finish the turn');
    await observer.close();
    expect((await storedTask(dataDir, task.id))?.state).toBe('TASK_STATE_WORKING');

    const second = await startA2aServer({ dataDir, env, cwd: workDir });
    try {
      const report = await second.a2a.reconciled;
      expect(report.tasks).toContainEqual({
        id: task.id,
        before: 'TASK_STATE_WORKING',
        after: 'TASK_STATE_COMPLETED',
      });
      const client = await clientFor(second.url, 'HTTP+JSON');
      const done = await client.getTask({ tenant: '', id: task.id });
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      expect(textsOf(done.artifacts[0]?.parts)).toBe('slowly '.repeat(30).trim());
      expect(done.metadata?.['kagent.claude.output_tokens']).toBe(5);
    } finally {
      await stopAllWorkers(second.runtime);
      await second.close();
    }
  }, 120_000);

  it('a turn still running at the next start is followed to its end; SubscribeToTask shows it', async () => {
    const dataDir = join(root, 'data-restart-2');
    const first = await startA2aServer({ dataDir, env, cwd: workDir });
    const task = await startTask(first, 'slow 80 still running');
    await first.close();

    const second = await startA2aServer({ dataDir, env, cwd: workDir });
    try {
      const report = await second.a2a.reconciled;
      expect(report.tasks.map((each) => [each.id, each.before])).toEqual([[task.id, 'TASK_STATE_WORKING']]);
      const client = await clientFor(second.url, 'JSONRPC');
      if (report.tasks[0]?.after === 'TASK_STATE_WORKING') {
        const replay = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
        expect(replay.map(describeEvent).slice(-2)).toEqual([
          `artifact ${'slowly '.repeat(80).trim()}`,
          'TASK_STATE_COMPLETED',
        ]);
      }
      const done = await waitFor(async () => {
        const latest = await client.getTask({ tenant: '', id: task.id });
        return completed(latest) && latest;
      }, 'the task to complete');
      expect(textsOf(done.artifacts[0]?.parts)).toBe('slowly '.repeat(80).trim());
    } finally {
      await stopAllWorkers(second.runtime);
      await second.close();
    }
  }, 120_000);
});
