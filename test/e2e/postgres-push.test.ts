/**
 * A2A push notifications with two `agentd serve` nodes on one PostgreSQL database (real server,
 * real `claude`, scripted model, an independent HTTP receiver): the node holding the `a2a-push`
 * duty sends each event once, whichever node runs the task; when it is SIGKILLed the other takes
 * the duty over and continues from the committed progress, repeating at most the one notification
 * that was in flight, under the same id (docs/decisions/0091-a2a-push-as-a-cluster-duty.md).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Message, Role, type SendMessageRequest, StreamResponse, TaskState } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { afterEach, describe, expect, it } from 'vitest';
import { textPart } from '../../src/server/a2a/parts.js';
import { testPostgresUrl } from '../postgres/test-database.js';
import { isRunning, killGroup, linesOf, readJournal, spawnCli, waitFor } from './helpers.js';
import { type Cluster, createCluster, type Node } from './postgres-nodes.js';

const url = testPostgresUrl('postgres-push.test.ts');
const idHeader = 'x-agentd-notification-id';

interface ServeNode {
  url: string;
  pid: number;
  /** 1 or 0 as its /metrics says, for a duty. */
  duty(name: string): Promise<number | undefined>;
}

const serving: number[] = [];

async function serve(node: Node, cwd: string): Promise<ServeNode> {
  const child = spawnCli(['serve', '--port', '0', '--data-dir', node.dataDir], {
    ...node.env,
    CLAUDE_CWD: cwd,
    CLAUDE_ALLOWED_TOOLS: 'Read',
  });
  serving.push(child.pid!);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const { lines } = linesOf(child);
  const base = await waitFor(() => lines.join('\n').match(/listening on (http:\/\/\S+)/)?.[1], {
    what: `node ${node.name} to listen (${stderr})`,
    timeoutMs: 60_000,
  });
  return {
    url: base,
    pid: child.pid!,
    async duty(name) {
      const text = await (await fetch(`${base}/metrics`)).text();
      const value = text.match(new RegExp(`^agentd_duty_leader\\{duty="${name}"\\} (\\d)`, 'm'))?.[1];
      return value === undefined ? undefined : Number(value);
    },
  };
}

interface Receipt {
  id: string;
  body: string;
}

/** An independent webhook: records every POST; while `hold` is set it keeps requests unanswered. */
async function startReceiver() {
  const receipts: Receipt[] = [];
  const held: ServerResponse[] = [];
  let hold = false;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receipts.push({ id: String(request.headers[idHeader]), body: Buffer.concat(chunks).toString('utf8') });
      if (hold) held.push(response);
      else response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    held,
    setHold(value: boolean) {
      hold = value;
      if (!value) for (const response of held.splice(0)) response.writeHead(200).end();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function streamingRequest(text: string, hookUrl: string): SendMessageRequest {
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: {
        tenant: '',
        id: 'hook',
        taskId: '',
        url: hookUrl,
        token: 'push-token',
        authentication: undefined,
      },
      returnImmediately: false,
    },
    metadata: undefined,
  };
}

/** What a notification or a streamed event says, as the v1.0 JSON a receiver reads. */
function describeBody(body: string): string {
  const json = JSON.parse(body) as Record<string, { status?: { state?: string }; artifact?: unknown }>;
  const [kind, value] = Object.entries(json)[0] ?? ['?', {}];
  return `${kind} ${value?.status?.state ?? ''}`.trim();
}

let cluster: Cluster | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  for (const pid of serving.splice(0)) killGroup(pid);
  await receiver?.close();
  receiver = undefined;
  await cluster?.cleanup();
  cluster = undefined;
});

describe.skipIf(url === undefined)('PostgreSQL: A2A push notifications across nodes', () => {
  it.each([
    { through: 'the other node', taskOn: 'b' },
    { through: 'the duty holder itself', taskOn: 'a' },
  ] as const)(
    'a task run through $through: each event pushed once by the duty holder; SIGKILLed with a notification in flight, the other node takes the duty over, repeats only that one (same id) and follows the task to its end',
    async ({ taskOn }) => {
      const answer = 'pushed across two nodes';
      cluster = await createCluster({
        url: url!,
        // The first answer waits, so the first notifications are out before it comes; the second
        // comes after node A died, so its events reach the outbox only through node B.
        script: (_request, index) =>
          index === 0
            ? {
                content: [
                  { type: 'text', text: 'reading the notes' },
                  { type: 'tool_use', name: 'Read', input: { file_path: join(c.cwd, 'notes.txt') } },
                ],
                delayMs: 6000,
              }
            : { text: answer, delayMs: 5000 },
      });
      const c = cluster;
      writeFileSync(join(c.cwd, 'notes.txt'), 'the notes say hello');
      receiver = await startReceiver();
      const hook = receiver;

      const a = await serve(c.node('a'), c.cwd);
      await waitFor(async () => (await a.duty('a2a-push')) === 1, { what: 'node A to hold the push duty' });
      const b = await serve(c.node('b'), c.cwd);
      expect(await b.duty('a2a-push')).toBe(0);

      // Node A, the duty holder, sends the notifications of a task run through either node. When the
      // task runs through A, A's death leaves it to B to follow (its detached worker lives on).
      const clientOf = (base: string) =>
        new ClientFactory(
          ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['JSONRPC'] }),
        ).createFromUrl(base);
      const client = await clientOf(taskOn === 'a' ? a.url : b.url);
      const streamed: string[] = [];
      const streaming = (async () => {
        for await (const event of client.sendMessageStream(streamingRequest('read the notes', hook.url)))
          streamed.push(JSON.stringify(StreamResponse.toJSON(event)));
      })().catch(() => {
        // Through node A, the stream ends with A's death.
      });
      // Both alive: the task and its WORKING status, each once.
      await waitFor(() => hook.receipts.length >= 2, {
        what: 'the first two notifications',
        timeoutMs: 60_000,
      });
      hook.setHold(true);
      expect(hook.receipts.map((receipt) => describeBody(receipt.body))).toEqual([
        'task TASK_STATE_SUBMITTED',
        'statusUpdate TASK_STATE_WORKING',
      ]);
      expect(new Set(hook.receipts.map((receipt) => receipt.id)).size).toBe(2);

      // The next notification reaches the receiver, which does not answer: A dies with it in flight.
      await waitFor(() => hook.held.length === 1, { what: 'a notification in flight', timeoutMs: 60_000 });
      const inFlight = hook.receipts.at(-1)!;
      expect(hook.receipts).toHaveLength(3);
      killGroup(a.pid);
      await waitFor(() => !isRunning(a.pid), { what: 'node A to die' });
      const killedAt = Date.now();
      hook.setHold(false);

      // Node B takes the duty over and delivers the rest, the one in flight again first.
      await waitFor(async () => (await b.duty('a2a-push')) === 1, {
        what: 'node B to take the push duty over',
        timeoutMs: 30_000,
      });
      await waitFor(() => hook.receipts.some((receipt) => receipt.body.includes('TASK_STATE_COMPLETED')), {
        what: 'the completion notification',
        timeoutMs: 90_000,
      });
      await streaming;

      const taskId = (JSON.parse(inFlight.body) as { statusUpdate: { taskId: string } }).statusUpdate.taskId;
      const task = await (await clientOf(b.url)).getTask({ tenant: '', id: taskId });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      // The answer was journaled after node A died: only node B followed the task to it.
      const runtime = await c.node('reader').openRuntime();
      const journal = await readJournal(runtime, String(task.metadata?.['agentd.sessionId']));
      const answered = journal.find(
        (event) => event.type === 'agent.message' && JSON.stringify(event.data).includes(answer),
      );
      expect(answered?.createdAt).toBeGreaterThan(killedAt);

      const ids = hook.receipts.map((receipt) => receipt.id);
      expect(ids.every((id) => id.startsWith(`${taskId}:`))).toBe(true);
      // Exactly one repeat: the notification that was in flight, right after it, byte for byte.
      const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
      expect(repeated).toEqual([inFlight.id]);
      expect(hook.receipts[3]).toEqual(inFlight);
      // Deduplicated by id, the receiver has every event of the task once, in the order a client
      // streaming the task saw them (through A, until A died).
      const unique = hook.receipts.filter((receipt, index) => ids.indexOf(receipt.id) === index);
      // (The stream's first event is the task as the SDK holds it when the stream starts, which may
      // already be WORKING; the notification is the SUBMITTED task event itself.)
      const after = (list: string[]) => list.slice(1, taskOn === 'b' ? undefined : streamed.length);
      expect(after(unique.map((receipt) => receipt.body))).toEqual(after(streamed));
      const seen = hook.receipts.map((receipt) => `${receipt.id} ${describeBody(receipt.body)}`);
      expect(
        unique.map((receipt) => describeBody(receipt.body)),
        seen.join('\n'),
      ).toEqual([
        'task TASK_STATE_SUBMITTED',
        'statusUpdate TASK_STATE_WORKING',
        'statusUpdate TASK_STATE_WORKING',
        'statusUpdate TASK_STATE_WORKING',
        'statusUpdate TASK_STATE_WORKING',
        'statusUpdate TASK_STATE_WORKING',
        'artifactUpdate',
        'statusUpdate TASK_STATE_COMPLETED',
      ]);
      expect(unique[2]!.body).toContain('reading the notes');
      expect(unique.at(-2)!.body).toContain(answer);
    },
    240_000,
  );
});
