/**
 * Several agentd nodes on one PostgreSQL database (real server, real `claude`, scripted model):
 * any node serves any session, a dead node's session resumes on another with every earlier turn,
 * and of nodes racing to resume a session exactly one owns it.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testPostgresUrl } from '../postgres/test-database.js';
import {
  checkGuarantees,
  childrenOf,
  isEvent,
  isRunning,
  killGroup,
  linesOf,
  readJournal,
  readUntil,
  repoRoot,
  timesSent,
  waitFor,
} from './helpers.js';
import { assertIsolated } from './isolated-env.js';
import { type Cluster, createCluster } from './postgres-nodes.js';

const url = testPostgresUrl('postgres-nodes.test.ts');
const parentFixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'parent.ts');
const tsxLoader = import.meta.resolve('tsx');

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.cleanup();
  cluster = undefined;
});

/** Every text the model was shown in a request, user and assistant turns alike. */
function conversationText(request: { body: { messages?: Array<{ content: unknown }> } | null }): string {
  return JSON.stringify(request.body?.messages ?? []);
}

describe.skipIf(url === undefined)('PostgreSQL: several nodes on one database', () => {
  it('a session started through node A continues through node B: B journals the input, the live worker answers with the first turn in context', async () => {
    cluster = await createCluster({
      url: url!,
      script: [{ text: 'first answer' }, { text: 'second answer' }],
    });
    const c = cluster;
    const a = await c.node('a').openRuntime();
    const b = await c.node('b').openRuntime();
    const { session } = await a.createSession({ prompt: 'turn one', cwd: c.cwd, messageId: 'm-1' });
    const [first] = await a.listExecutions(session.id);
    await readUntil(a, session.id, isEvent('work.settled', first!.id));

    // Node B sees the session, and does not start a worker of its own: node A's worker owns it.
    expect((await b.getSession(session.id)).live?.id).toBe(first!.id);
    const after = await b.lastCursor(session.id);
    await b.send(session.id, { text: 'turn two', messageId: 'm-2' });
    const seen = await readUntil(b, session.id, isEvent('work.settled', first!.id), { after });
    expect(seen.some((event) => event.type === 'agent.message')).toBe(true);
    expect((await b.listExecutions(session.id)).map((execution) => execution.id)).toEqual([first!.id]);

    const second = c.model.conversationRequests().at(-1)!;
    expect(conversationText(second)).toContain('turn one');
    expect(conversationText(second)).toContain('first answer');
    expect(conversationText(second)).toContain('turn two');
    await checkGuarantees(b, session.id, { acknowledged: ['m-1', 'm-2'], model: c.model });
  });

  it("node A's processes SIGKILLed mid-turn: the session resumes through node B with every earlier turn, cursors continuous", async () => {
    const slow =
      'This second answer streams slowly, four characters at a time, so node A dies in the middle of it.';
    cluster = await createCluster({
      url: url!,
      script: [
        { text: 'first answer' },
        { text: slow, chunkDelayMs: 120, chunkSize: 4 },
        { text: 'answer on B' },
      ],
    });
    const c = cluster;
    const nodeA = c.node('a');
    // Node A is a process of its own (with its detached worker), as a pod would be.
    const parent = spawn(
      process.execPath,
      ['--import', tsxLoader, parentFixture, nodeA.dataDir, c.cwd, 'turn one'],
      {
        cwd: assertIsolated(nodeA.env),
        env: nodeA.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const { lines } = linesOf(parent);
    const started = JSON.parse(await waitFor(() => lines[0], { what: 'node A to start a session' })) as {
      sessionId: string;
      executionId: string;
      pid: number;
    };
    const b = await c.node('b').openRuntime();
    await readUntil(b, started.sessionId, isEvent('work.settled', started.executionId));
    const before = await b.lastCursor(started.sessionId);
    await b.send(started.sessionId, { text: 'turn two', messageId: 'm-2' });
    await waitFor(() => c.model.conversationRequests().length === 2, {
      what: "node A's worker to ask the model",
    });
    const second = await b.getInput(started.sessionId, 'm-2');
    await waitFor(
      async () =>
        (await readJournal(b, started.sessionId)).some(
          (event) =>
            event.type === 'input.delivered' && (event.data as { inputId?: string }).inputId === second?.id,
        ),
      { what: 'turn two to be delivered' },
    );
    const seen = await readJournal(b, started.sessionId);
    expect(seen.length).toBeGreaterThan(before);

    // All of node A dies at once: its agentd process and its worker with claude.
    const claudes = childrenOf(started.pid);
    killGroup(parent.pid);
    killGroup(started.pid);
    await waitFor(() => !isRunning(started.pid) && claudes.every((pid) => !isRunning(pid)), {
      what: "node A's processes to die",
    });
    // Mid-turn: the first turn completed, the second did not.
    expect((await readJournal(b, started.sessionId)).filter(isEvent('agent.turn.completed'))).toHaveLength(1);

    const resumed = await b.resume(started.sessionId);
    const failed = (await b.listExecutions(started.sessionId)).find(
      (each) => each.id === started.executionId,
    );
    expect([failed?.state, failed?.error?.code]).toEqual(['failed', 'worker_died']);
    await readUntil(b, started.sessionId, isEvent('execution.started', resumed.id), { after: before });
    const cursor = await b.lastCursor(started.sessionId);
    await b.send(started.sessionId, { text: 'turn three', messageId: 'm-3' });
    await readUntil(b, started.sessionId, isEvent('work.settled', resumed.id), { after: cursor });

    // Node B's claude has its own config dir: the earlier turns came from the database.
    const last = c.model.conversationRequests().at(-1)!;
    expect(conversationText(last)).toContain('turn one');
    expect(conversationText(last)).toContain('first answer');
    expect(conversationText(last)).toContain('turn three');
    expect(timesSent(c.model, 'turn three')).toBe(1);
    const journal = await checkGuarantees(b, started.sessionId, { seen, model: c.model });
    expect(journal.filter((event) => event.executionId === resumed.id).length).toBeGreaterThan(0);
  });

  it('two nodes racing to resume one session: exactly one worker owns it', async () => {
    cluster = await createCluster({
      url: url!,
      script: [{ text: 'first answer' }, { text: 'after the race' }],
    });
    const c = cluster;
    const a = await c.node('a').openRuntime();
    const { session } = await a.createSession({ prompt: 'turn one', cwd: c.cwd, messageId: 'm-1' });
    const [first] = await a.listExecutions(session.id);
    await readUntil(a, session.id, isEvent('work.settled', first!.id));
    await a.stop(session.id);
    await waitFor(async () => (await a.getSession(session.id)).live === null, { what: 'the worker to stop' });

    const b = await c.node('b').openRuntime();
    const d = await c.node('d').openRuntime();
    const results = await Promise.allSettled([b.resume(session.id), d.resume(session.id)]);
    const resumed = results.filter((result) => result.status === 'fulfilled').map((result) => result.value);
    expect(resumed.length).toBeGreaterThanOrEqual(1);
    // Whatever both nodes started, once the starters settle exactly one execution holds the lease.
    const owner = await waitFor(
      async () => {
        const executions = await b.listExecutions(session.id);
        if (executions.some((execution) => execution.state === 'starting')) return null;
        const live = executions.filter((execution) => ['running', 'idle'].includes(execution.state));
        return live.length === 1 ? live[0] : null;
      },
      { what: 'one live worker' },
    );
    const lease = await b.store.getLease(session.id);
    expect(lease?.owner).toBe(owner.id);
    const cursor = await b.lastCursor(session.id);
    await d.send(session.id, { text: 'after the race', messageId: 'm-2' });
    await readUntil(d, session.id, isEvent('work.settled', owner.id), { after: cursor });
    await checkGuarantees(d, session.id, { acknowledged: ['m-1', 'm-2'], model: c.model });
  });
});
