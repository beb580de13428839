import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Role, type Task, TaskState, taskStateToJSON } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import {
  A2A_ERROR_CODE,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/serve.js';
import { SqliteA2aStore } from '../../src/store/sqlite/sqlite-a2a-store.js';
import { isolatedEnv } from './isolated-env.js';

// The A2A conformance points found by the A2A TCK that are agentd's own, each through the public
// interface: `agentd serve` (startServer) with the @a2a-js/sdk client, or raw HTTP where the client
// cannot send the bad input. No model is configured: none of these requests reaches one.

const bodyLimitBytes = 4096;
let root = '';
let server: RunningServer;
const clients = {} as Record<'JSONRPC' | 'HTTP+JSON', Client>;

async function clientFor(transport: 'JSONRPC' | 'HTTP+JSON'): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  return factory.createFromUrl(server.url);
}

async function rpc(body: unknown, path = '/a2a') {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC wire JSON, read field by field in assertions
    body: (await response.json()) as any,
  };
}

/** A task as a finished turn leaves it, written where the server keeps its tasks. */
async function seedTask(state: TaskState): Promise<Task> {
  const id = randomUUID();
  const contextId = randomUUID();
  const timestamp = new Date().toISOString();
  const store = SqliteA2aStore.open({ path: join(server.dataDir, 'agentd.db') });
  try {
    await store.saveA2aTask({
      id,
      contextId,
      state: taskStateToJSON(state),
      statusTimestamp: timestamp,
      task: {
        id,
        contextId,
        status: { state: taskStateToJSON(state), timestamp },
        history: [],
        artifacts: [],
      },
      now: Date.now(),
    });
  } finally {
    await store.close();
  }
  return {
    id,
    contextId,
    status: { state, timestamp, message: undefined },
    history: [],
    artifacts: [],
    metadata: {},
  };
}

const listRequest = (overrides: Record<string, unknown> = {}) => ({
  tenant: '',
  contextId: '',
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageToken: '',
  statusTimestampAfter: undefined,
  ...overrides,
});

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'agentd-a2a-tck-'));
  server = await startServer({
    port: 0,
    dataDir: join(root, 'data'),
    env: isolatedEnv(root),
    bodyLimitBytes,
    reconcileMs: 60_000,
  });
  clients.JSONRPC = await clientFor('JSONRPC');
  clients['HTTP+JSON'] = await clientFor('HTTP+JSON');
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('A2A conformance', () => {
  it('JSON-RPC: an invalid envelope (wrong version, no method, not an object) is -32600 Invalid Request', async () => {
    const invalid: unknown[] = [
      { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 't' } },
      { jsonrpc: '2.0', id: 2, params: { id: 't' } },
      { jsonrpc: '2.0', id: 3, method: '', params: {} },
      { id: 4, method: 'tasks/get', params: { id: 't' } },
      { jsonrpc: '2.0', id: { nested: true }, method: 'GetTask', params: { id: 't' } },
      [],
      [{ jsonrpc: '2.0', id: 5, method: 'GetTask', params: { id: 't' } }],
      'GetTask',
      42,
      null,
    ];
    for (const body of invalid) {
      const answer = await rpc(JSON.stringify(body));
      expect({ body, status: answer.status, code: answer.body.error?.code }).toEqual({
        body,
        status: 200,
        code: A2A_ERROR_CODE.INVALID_REQUEST,
      });
    }
    // The id is echoed when there is one to echo; a valid envelope with bad params stays -32602.
    expect((await rpc({ jsonrpc: '1.0', id: 'abc', method: 'GetTask' })).body.id).toBe('abc');
    const badParams = await rpc({ jsonrpc: '2.0', id: 6, method: 'GetTask', params: [] });
    expect(badParams.body.error.code).toBe(A2A_ERROR_CODE.INVALID_PARAMS);
  });

  it('GetTask and ListTasks refuse historyLength < 0 on every transport', async () => {
    const task = await seedTask(TaskState.TASK_STATE_COMPLETED);
    for (const client of Object.values(clients)) {
      await expect(client.getTask({ tenant: '', id: task.id, historyLength: -1 })).rejects.toBeInstanceOf(
        RequestMalformedError,
      );
      await expect(client.listTasks(listRequest({ historyLength: -1 }))).rejects.toBeInstanceOf(
        RequestMalformedError,
      );
      await expect(client.getTask({ tenant: '', id: task.id, historyLength: 0 })).resolves.toMatchObject({
        id: task.id,
      });
    }
    const legacy = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'tasks/get',
      params: { id: task.id, historyLength: -2 },
    });
    expect(legacy.body.error.code).toBe(A2A_ERROR_CODE.INVALID_PARAMS);
  });

  it('ListTasks takes only an RFC 3339 statusTimestampAfter, on every transport', async () => {
    const task = await seedTask(TaskState.TASK_STATE_COMPLETED);
    for (const client of Object.values(clients)) {
      for (const bad of [
        '-1',
        '2026-01-01',
        '12',
        'yesterday',
        '2026-13-01T00:00:00Z',
        '2026-02-30T00:00:00Z',
      ]) {
        await expect(client.listTasks(listRequest({ statusTimestampAfter: bad }))).rejects.toBeInstanceOf(
          RequestMalformedError,
        );
      }
      const later = await client.listTasks(listRequest({ statusTimestampAfter: '2999-01-01T00:00:00Z' }));
      expect(later.tasks).toEqual([]);
      const earlier = await client.listTasks(
        listRequest({ statusTimestampAfter: '2000-01-01T00:00:00.5+02:00' }),
      );
      expect(earlier.tasks.map((each) => each.id)).toContain(task.id);
    }
  });

  it('a 413 leaves a keep-alive client a working connection (it says Connection: close)', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: string) =>
      new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
        const request = httpRequest(
          `${server.url}/a2a`,
          { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
          (response) => {
            let text = '';
            response.on('data', (chunk: Buffer) => {
              text += chunk.toString('utf8');
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    const getTask = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'GetTask',
      params: { id: 'no-such-task' },
    });
    try {
      for (const size of [bodyLimitBytes * 2, 2_000_000]) {
        const tooLarge = await post(
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', pad: 'x'.repeat(size) }),
        );
        expect(tooLarge.status).toBe(413);
        expect(JSON.parse(tooLarge.text).error.code).toBe('payload_too_large');
        expect(tooLarge.connection).toBe('close');
        const next = await post(getTask);
        expect(next.status).toBe(200);
        expect(JSON.parse(next.text).error.code).toBe(A2A_ERROR_CODE.TASK_NOT_FOUND);
      }
    } finally {
      agent.destroy();
    }
  });

  it('a message without a role, or with an unspecified one, is refused with -32602 and changes nothing', async () => {
    const contextId = randomUUID();
    const message = (extra: Record<string, unknown>) => ({
      messageId: randomUUID(),
      contextId,
      parts: [{ text: 'hello' }],
      ...extra,
    });
    for (const extra of [{}, { role: 'ROLE_UNSPECIFIED' }, { role: 0 }]) {
      const v1 = await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: message(extra) },
      });
      expect(v1.body.error).toMatchObject({
        code: A2A_ERROR_CODE.INVALID_PARAMS,
        message: expect.stringMatching(/role/),
      });
      const rest = await fetch(`${server.url}/a2a/v1/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: message(extra) }),
      });
      expect(rest.status).toBe(400);
    }
    const legacy = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          contextId,
          parts: [{ kind: 'text', text: 'hi' }],
        },
      },
    });
    expect(legacy.body.error?.code).toBe(A2A_ERROR_CODE.INVALID_PARAMS);
    expect((await clients.JSONRPC.listTasks(listRequest({ contextId }))).tasks).toEqual([]);
    expect(await server.runtime.listSessions()).toEqual([]);
  });

  it('CancelTask on a finished task is 409 over HTTP+JSON and -32002 over JSON-RPC', async () => {
    const task = await seedTask(TaskState.TASK_STATE_COMPLETED);
    const raw = await fetch(`${server.url}/a2a/v1/tasks/${task.id}:cancel`, { method: 'POST' });
    expect(raw.status).toBe(409);
    expect(((await raw.json()) as { error: { status: string } }).error.status).toBe('FAILED_PRECONDITION');
    await expect(
      clients['HTTP+JSON'].cancelTask({ tenant: '', id: task.id, metadata: {} }),
    ).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(
      clients.JSONRPC.cancelTask({ tenant: '', id: task.id, metadata: {} }),
    ).rejects.toBeInstanceOf(TaskNotCancelableError);
    const rpcAnswer = await rpc({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: task.id } });
    expect(rpcAnswer.body.error.code).toBe(A2A_ERROR_CODE.TASK_NOT_CANCELABLE);
    expect((await clients.JSONRPC.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('SubscribeToTask on an unknown or finished task fails before any stream: a plain error response', async () => {
    const raw = await rpc({
      jsonrpc: '2.0',
      id: 7,
      method: 'SubscribeToTask',
      params: { id: 'no-such-task' },
    });
    expect(raw).toMatchObject({
      status: 200,
      contentType: expect.stringMatching(/^application\/json/),
      body: { jsonrpc: '2.0', id: 7, error: { code: A2A_ERROR_CODE.TASK_NOT_FOUND } },
    });
    const rest = await fetch(`${server.url}/a2a/v1/tasks/no-such-task:subscribe`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(rest.status).toBe(404);
    expect(rest.headers.get('content-type')).toMatch(/json/);
    expect(((await rest.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');

    const finished = await seedTask(TaskState.TASK_STATE_COMPLETED);
    for (const client of Object.values(clients)) {
      const unknown = client.resubscribeTask({ tenant: '', id: 'no-such-task' })[Symbol.asyncIterator]();
      await expect(unknown.next()).rejects.toBeInstanceOf(TaskNotFoundError);
      const done = client.resubscribeTask({ tenant: '', id: finished.id })[Symbol.asyncIterator]();
      await expect(done.next()).rejects.toBeInstanceOf(UnsupportedOperationError);
    }
  });
});

describe('a fault of the server', () => {
  it('is "internal server error", not a message that names the data file; no task is made', async () => {
    const faulty = await startServer({
      port: 0,
      dataDir: join(root, 'data-fault'),
      env: isolatedEnv(root),
      reconcileMs: 60_000,
    });
    try {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['JSONRPC'] }),
      );
      const client = await factory.createFromUrl(faulty.url);
      // The runtime's store goes away (as a store that fails would); the A2A store still works.
      await faulty.runtime.close();
      const message = {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text' as const, value: 'hello' },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      // The message's channel is found before the SDK makes a task, so the fault is the request's
      // error rather than a failed task.
      const failure = await client
        .sendMessage({
          tenant: '',
          message,
          metadata: undefined,
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            returnImmediately: false,
          },
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(Error);
      expect(failure).toMatchObject({ message: 'internal server error' });
      expect(JSON.stringify(failure)).not.toContain(faulty.dataDir);
      expect((await client.listTasks(listRequest())).tasks).toEqual([]);
    } finally {
      await faulty.close();
    }
  });
});
