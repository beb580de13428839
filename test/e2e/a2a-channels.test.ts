import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Message,
  type Part,
  Role,
  type SendMessageRequest,
  type Task,
  TaskState,
  taskStateToJSON,
} from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { A2A_ERROR_CODE } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { lastUserText } from '../../src/testing/demo-model.js';
import {
  type RecordedRequest,
  requestText,
  type ScriptedModel,
  type ScriptTurn,
  startScriptedModel,
} from '../../src/testing/index.js';
import { type A2aTestServer, startA2aServer, stopAllWorkers } from './a2a-harness.js';
import { isolatedEnv } from './isolated-env.js';

// An A2A contextId is the channel `a2a:<contextId>`, and a message may name a role in its metadata
// (`agentd.role`): through the @a2a-js/sdk client (JSON-RPC and HTTP+JSON) and raw HTTP for the
// wire codes, against mountA2a on a real HTTP server (and `agentd serve` with bearer tokens for a
// principal's), detached workers running the real SDK and `claude`, and the scripted model.

const reviewerPrompt = 'You are the reviewer: REVIEWER-MARK.';

/** `say X` echoes; `touch F` runs Bash, which waits for an approval (only Read is allowed). */
function script(request: RecordedRequest): ScriptTurn {
  const said = lastUserText(request);
  const messages = request.body?.messages ?? [];
  const last = messages.at(-1)?.content;
  if (Array.isArray(last) && last.some((block: { type?: string }) => block.type === 'tool_result'))
    return { text: 'after the tool' };
  if (said.startsWith('say ')) return { text: `echo: ${said.slice(4)}` };
  if (said.startsWith('touch '))
    return { content: [{ type: 'tool_use', name: 'Bash', input: { command: `touch ${said.slice(6)}` } }] };
  return { text: `unknown: ${said}` };
}

const textPart = (text: string): Part => ({
  content: { $case: 'text', value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

function userMessage(
  parts: Part[] | string,
  options: { contextId?: string; taskId?: string; role?: unknown } = {},
): Message {
  return {
    messageId: randomUUID(),
    contextId: options.contextId ?? '',
    taskId: options.taskId ?? '',
    role: Role.ROLE_USER,
    parts: typeof parts === 'string' ? [textPart(parts)] : parts,
    metadata: options.role === undefined ? undefined : { 'agentd.role': options.role },
    extensions: [],
    referenceTaskIds: [],
  };
}

function sendRequest(message: Message): SendMessageRequest {
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
    },
    metadata: undefined,
  };
}

const stateOf = (task: Task | undefined) =>
  taskStateToJSON(task?.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
const sessionOf = (task: Task) => String(task.metadata?.['agentd.sessionId']);

async function clientFor(url: string, transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  return factory.createFromUrl(url);
}

/** A message sent as raw JSON over both bindings: what each answers. */
async function sendRaw(url: string, message: Record<string, unknown>, token?: string) {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const rpc = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...auth },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
  });
  const rest = await fetch(`${url}/a2a/v1/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ message: { ...message, messageId: randomUUID() } }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in assertions
  const rpcBody = (await rpc.json()) as any;
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in assertions
  const restBody = (await rest.json()) as any;
  const codeIn = (details: Array<{ metadata?: { code?: string } }> | undefined) =>
    details?.find((detail) => detail.metadata?.code)?.metadata?.code;
  return {
    jsonRpc: {
      code: rpcBody.error?.code,
      agentdCode: codeIn(rpcBody.error?.data),
      message: rpcBody.error?.message,
    },
    rest: { status: rest.status, agentdCode: codeIn(restBody.error?.details) },
  };
}

const rawMessage = (text: string, contextId: string, metadata?: Record<string, unknown>) => ({
  messageId: randomUUID(),
  contextId,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(metadata ? { metadata } : {}),
});

let root = '';
let model: ScriptedModel;
let server: A2aTestServer;
/** `agentd serve` with an owner token, where alice has a token of her own. */
let served: RunningServer;
let aliceToken = '';
const clients = {} as Record<'JSONRPC' | 'HTTP+JSON', Client>;

/** The conversation requests the model got for a prompt. */
const requestsFor = (prompt: string) =>
  model.conversationRequests().filter((request) => lastUserText(request) === prompt);
const systemOf = (request: RecordedRequest) => JSON.stringify(request.body?.system ?? '');

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentd-a2a-channels-'));
  const workDir = join(root, 'work');
  mkdirSync(workDir);
  model = await startScriptedModel({ script });
  const env = isolatedEnv(root, { ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'scripted-model-key' });
  const options = { env, cwd: workDir, config: { allowedTools: ['Read'] } };
  server = await startA2aServer({ ...options, dataDir: join(root, 'data') });
  await server.runtime.roles.create({ name: 'reviewer', systemPrompt: reviewerPrompt });
  clients.JSONRPC = await clientFor(server.url, 'JSONRPC');
  clients['HTTP+JSON'] = await clientFor(server.url, 'HTTP+JSON');

  // Alice may trigger the agent in the default project and select the default and helper roles,
  // not the reviewer.
  served = await startServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: join(root, 'data-served'),
    env: { ...env, CLAUDE_CWD: workDir, CLAUDE_ALLOWED_TOOLS: 'Read', AGENTD_TOKENS: 'owner-token' },
    reconcileMs: 60_000,
  });
  const { runtime } = served;
  await runtime.roles.create({ name: 'reviewer', systemPrompt: reviewerPrompt });
  await runtime.roles.create({ name: 'helper', systemPrompt: 'You help.' });
  aliceToken = (await runtime.grants.issueToken('alice')).token;
  await runtime.grants.add({
    principal: 'alice',
    action: 'agent.trigger',
    resource: 'project:default/default',
  });
  await runtime.grants.add({ principal: 'alice', action: 'role.trigger', resource: 'role:default/default' });
  await runtime.grants.add({ principal: 'alice', action: 'role.trigger', resource: 'role:default/helper' });
});

afterAll(async () => {
  for (const running of [server, served]) {
    if (!running) continue;
    await stopAllWorkers(running.runtime);
    await running.close();
  }
  await model?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('an A2A context is a channel', () => {
  it('two messages in one context reach the channel’s session, under the default role', async () => {
    const contextId = randomUUID();
    const one = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('say one', { contextId })),
    )) as Task;
    const two = (await clients['HTTP+JSON'].sendMessage(
      sendRequest(userMessage('say two', { contextId })),
    )) as Task;
    expect([stateOf(one), stateOf(two)]).toEqual(['TASK_STATE_COMPLETED', 'TASK_STATE_COMPLETED']);
    expect(sessionOf(two)).toBe(sessionOf(one));
    const channel = await server.runtime.channels.get(`a2a:${contextId}`);
    expect(channel.role.name).toBe('default');
    expect(channel.session?.id).toBe(sessionOf(one));
    expect(requestText(requestsFor('say two')[0]!)).toContain('echo: one');
  });

  it('a message without a contextId starts a new channel', async () => {
    const task = (await clients.JSONRPC.sendMessage(sendRequest(userMessage('say fresh')))) as Task;
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(task.contextId).not.toBe('');
    expect((await server.runtime.channels.get(`a2a:${task.contextId}`)).session?.id).toBe(sessionOf(task));
  });

  it('a role in the metadata switches the channel to that role’s own session; later messages stay; switching back continues the first', async () => {
    const contextId = randomUUID();
    const key = `a2a:${contextId}`;
    const first = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('say alpha', { contextId })),
    )) as Task;
    const before = await server.runtime.channels.get(key);
    expect(before.session?.id).toBe(sessionOf(first));
    const firstNative = before.session?.nativeSessionId;
    expect(firstNative).toBeTruthy();

    const switched = (await clients['HTTP+JSON'].sendMessage(
      sendRequest(userMessage('say beta', { contextId, role: 'reviewer' })),
    )) as Task;
    expect(stateOf(switched)).toBe('TASK_STATE_COMPLETED');
    expect(sessionOf(switched)).not.toBe(sessionOf(first));
    const reviewing = await server.runtime.channels.get(key);
    expect(reviewing.role.name).toBe('reviewer');
    expect(reviewing.session?.id).toBe(sessionOf(switched));
    expect(reviewing.session?.role).toBe('reviewer');
    expect(reviewing.session?.nativeSessionId).toBeTruthy();
    expect(reviewing.session?.nativeSessionId).not.toBe(firstNative);
    const beta = requestsFor('say beta')[0]!;
    expect(systemOf(beta)).toContain('REVIEWER-MARK');
    expect(requestText(beta)).not.toContain('say alpha');

    // No role named: the channel stays with the reviewer.
    const stays = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('say gamma', { contextId })),
    )) as Task;
    expect(sessionOf(stays)).toBe(sessionOf(switched));
    const gamma = requestsFor('say gamma')[0]!;
    expect(systemOf(gamma)).toContain('REVIEWER-MARK');
    expect(requestText(gamma)).toContain('echo: beta');
    expect(requestText(gamma)).not.toContain('say alpha');

    // Back to the default role: its first session, and the same native session, continues.
    const back = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('say delta', { contextId, role: 'default' })),
    )) as Task;
    expect(stateOf(back)).toBe('TASK_STATE_COMPLETED');
    expect(sessionOf(back)).toBe(sessionOf(first));
    const after = await server.runtime.channels.get(key);
    expect(after.role.name).toBe('default');
    expect(after.session?.id).toBe(sessionOf(first));
    expect(after.session?.nativeSessionId).toBe(firstNative);
    const delta = requestsFor('say delta')[0]!;
    expect(systemOf(delta)).not.toContain('REVIEWER-MARK');
    expect(requestText(delta)).toContain('echo: alpha');
    expect(requestText(delta)).not.toContain('say beta');
  });

  it('a reply on a waiting task answers it in the task’s role: naming another role there is refused', async () => {
    const contextId = randomUUID();
    const waiting = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('touch reply.txt', { contextId })),
    )) as Task;
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const approve = (role: string) =>
      userMessage(
        [
          {
            content: { $case: 'data', value: { decision_type: 'approve' } },
            metadata: undefined,
            filename: '',
            mediaType: 'application/json',
          },
        ],
        { contextId, taskId: waiting.id, role },
      );
    await expect(clients.JSONRPC.sendMessage(sendRequest(approve('reviewer')))).rejects.toThrow(
      /runs under role default/,
    );
    expect((await server.runtime.channels.get(`a2a:${contextId}`)).role.name).toBe('default');
    const done = (await clients.JSONRPC.sendMessage(sendRequest(approve('default')))) as Task;
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
  });
});

describe('refusals, each with its code, changing nothing', () => {
  it('a role that is not a string is invalid params (400); an unknown role is not found (404)', async () => {
    const contextId = randomUUID();
    const notString = await sendRaw(server.url, rawMessage('say x', contextId, { 'agentd.role': 42 }));
    expect(notString.jsonRpc).toMatchObject({
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      agentdCode: 'invalid_input',
    });
    expect(notString.rest).toEqual({ status: 400, agentdCode: 'invalid_input' });
    const unknown = await sendRaw(server.url, rawMessage('say x', contextId, { 'agentd.role': 'nobody' }));
    expect(unknown.jsonRpc).toMatchObject({ code: A2A_ERROR_CODE.INVALID_PARAMS, agentdCode: 'not_found' });
    expect(unknown.rest).toEqual({ status: 404, agentdCode: 'not_found' });
    expect(requestsFor('say x')).toEqual([]);
  });

  it('commands: /compact is the one A2A takes; another known one is invalid, an unknown one unknown_command', async () => {
    const contextId = randomUUID();
    const status = await sendRaw(server.url, rawMessage('/status', contextId));
    expect(status.jsonRpc).toMatchObject({
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      agentdCode: 'invalid_input',
    });
    expect(status.rest).toEqual({ status: 400, agentdCode: 'invalid_input' });
    const bogus = await sendRaw(server.url, rawMessage('/bogus', contextId));
    expect(bogus.jsonRpc).toMatchObject({
      code: A2A_ERROR_CODE.INVALID_PARAMS,
      agentdCode: 'unknown_command',
    });
    expect(bogus.rest).toEqual({ status: 400, agentdCode: 'unknown_command' });
    // Refused before the context became a channel.
    await expect(server.runtime.channels.get(`a2a:${contextId}`)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(model.conversationRequests().some((request) => lastUserText(request).includes('bogus'))).toBe(
      false,
    );

    // `//text` is text that starts with `/`.
    const slashed = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('//say slashed', { contextId })),
    )) as Task;
    expect(stateOf(slashed)).toBe('TASK_STATE_COMPLETED');
    expect(requestsFor('/say slashed')).toHaveLength(1);
  });

  it('a session over its budget: budget_exceeded, -32004 and HTTP 402, before any task is made', async () => {
    const contextId = randomUUID();
    const first = (await clients.JSONRPC.sendMessage(
      sendRequest(userMessage('say spend', { contextId })),
    )) as Task;
    await server.runtime.budgets.set({ scope: 'session', target: sessionOf(first), limitUsd: 0 });
    try {
      const refused = await sendRaw(server.url, rawMessage('say over', contextId));
      expect(refused.jsonRpc).toMatchObject({
        code: A2A_ERROR_CODE.UNSUPPORTED_OPERATION,
        agentdCode: 'budget_exceeded',
      });
      expect(refused.rest).toEqual({ status: 402, agentdCode: 'budget_exceeded' });
      const tasks = await clients.JSONRPC.listTasks({
        tenant: '',
        contextId,
        status: 0,
        pageToken: '',
        statusTimestampAfter: undefined,
      });
      expect(tasks.tasks.map((task) => task.id)).toEqual([first.id]);
      expect(await server.runtime.listInputs(sessionOf(first))).toHaveLength(1);
    } finally {
      await server.runtime.budgets.set({ scope: 'session', target: sessionOf(first), limitUsd: null });
    }
  });

  it('a principal without role.trigger on the role: forbidden (-32602, HTTP 403), the channel keeps its role', async () => {
    const client = await clientFor(served.url, 'JSONRPC');
    const asAlice = { serviceParameters: { Authorization: `Bearer ${aliceToken}` } };
    const { runtime } = served;
    const contextId = randomUUID();
    const key = `a2a:${contextId}`;
    const first = (await client.sendMessage(
      sendRequest(userMessage('say as alice', { contextId })),
      asAlice,
    )) as Task;
    expect(stateOf(first)).toBe('TASK_STATE_COMPLETED');
    const inputs = (await runtime.listInputs(sessionOf(first))).length;
    const sessions = (await runtime.listSessions({ limit: 1000 })).length;

    await expect(
      client.sendMessage(sendRequest(userMessage('say review', { contextId, role: 'reviewer' })), asAlice),
    ).rejects.toThrow(/alice may not role\.trigger/);
    const wire = await sendRaw(
      served.url,
      rawMessage('say review', contextId, { 'agentd.role': 'reviewer' }),
      aliceToken,
    );
    expect(wire.jsonRpc).toMatchObject({ code: A2A_ERROR_CODE.INVALID_PARAMS, agentdCode: 'forbidden' });
    expect(wire.rest).toEqual({ status: 403, agentdCode: 'forbidden' });
    const channel = await runtime.channels.get(key);
    expect(channel.role.name).toBe('default');
    expect(channel.session?.id).toBe(sessionOf(first));
    expect(await runtime.listInputs(sessionOf(first))).toHaveLength(inputs);
    expect(await runtime.listSessions({ limit: 1000 })).toHaveLength(sessions);
    expect(requestsFor('say review')).toEqual([]);

    // A role she may trigger switches as for anyone; the owner's token may select any role.
    const helped = (await client.sendMessage(
      sendRequest(userMessage('say help', { contextId, role: 'helper' })),
      asAlice,
    )) as Task;
    expect(stateOf(helped)).toBe('TASK_STATE_COMPLETED');
    expect((await runtime.channels.get(key)).role.name).toBe('helper');
    const reviewed = (await client.sendMessage(
      sendRequest(userMessage('say owner review', { contextId, role: 'reviewer' })),
      { serviceParameters: { Authorization: 'Bearer owner-token' } },
    )) as Task;
    expect(stateOf(reviewed)).toBe('TASK_STATE_COMPLETED');
    expect((await runtime.channels.get(key)).role.name).toBe('reviewer');
  });
});
