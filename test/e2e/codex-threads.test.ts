/**
 * Codex threads kept in the store (0145): a session resumes with its conversation after its
 * `CODEX_HOME` is wiped, and on a node with another `CODEX_HOME`; and each turn's own usage, priced.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rolloutProjectKey } from '../../src/backends/codex/codex-threads.js';
import { createRuntime, type EventRecord, type Runtime } from '../../src/index.js';
import { type RecordedRequest, userTexts } from '../../src/testing/index.js';
import {
  createHarness,
  dataOf,
  type Harness,
  isEvent,
  isRunning,
  readJournal,
  readUntil,
  waitFor,
} from './helpers.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

/** Every turn answers `echo: TEXT`, with the same usage each time. */
const usage = { input_tokens: 1000, cache_read_input_tokens: 400, output_tokens: 100 };
const echo = (request: RecordedRequest) => ({ text: `echo: ${userTexts(request).at(-1) ?? ''}`, usage });

/** Sends `text` and returns the events of its turn, up to its `work.settled`. */
async function turn(runtime: Runtime, sessionId: string, text: string): Promise<EventRecord[]> {
  const after = (await readJournal(runtime, sessionId)).at(-1)?.cursor ?? 0;
  await runtime.send(sessionId, { text, messageId: `m:${text}` });
  return readUntil(runtime, sessionId, isEvent('work.settled'), { after });
}

/** Stops the session's worker and waits until it has exited. */
async function stopWorker(runtime: Runtime, sessionId: string): Promise<void> {
  const stopping = await runtime.stop(sessionId);
  if (!stopping) return;
  await readUntil(runtime, sessionId, isEvent('execution.stopped', stopping.id));
  await waitFor(() => !isRunning(stopping.pid!), { what: 'the worker to exit' });
}

function rolloutFiles(codexHome: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.startsWith('rollout-')) found.push(join(dir, entry.name));
    }
  };
  walk(join(codexHome, 'sessions'));
  return found;
}

const completedOf = (events: EventRecord[]) => dataOf(events.find(isEvent('agent.turn.completed'))!);

describe('codex threads in the store', () => {
  it('a wiped CODEX_HOME, then another node’s: the thread resumes with every earlier turn', {
    timeout: 120_000,
  }, async () => {
    harness = await createHarness({ backend: 'codex', script: echo });
    const h = harness;
    const codexHome = h.env.CODEX_HOME!;
    const { session } = await h.runtime.createSession({ backend: 'codex', model: 'gpt-5.4', cwd: h.cwd });
    await turn(h.runtime, session.id, 'say one');
    const threadId = (await h.runtime.getSession(session.id)).session.nativeSessionId!;
    // The rollout codex wrote is in the store, line for line.
    const [rollout] = rolloutFiles(codexHome);
    expect(rollout).toMatch(new RegExp(`/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-.*-${threadId}\\.jsonl$`));
    const local = readFileSync(rollout!, 'utf8').trim().split('\n');
    const stored = await h.runtime.store.loadTranscript({
      projectKey: rolloutProjectKey,
      sessionId: threadId,
    });
    expect(stored?.map((entry) => entry.line)).toEqual(local);

    // This node loses its CODEX_HOME between turns.
    await stopWorker(h.runtime, session.id);
    rmSync(join(codexHome, 'sessions'), { recursive: true, force: true });
    const second = await turn(h.runtime, session.id, 'say two');
    expect(second.filter(isEvent('agent.message')).map((event) => dataOf(event).text)).toEqual([
      'echo: say two',
    ]);
    const asked = h.model.conversationRequests().at(-1)!;
    expect(userTexts(asked)).toEqual(['say one', 'say two']);
    expect(JSON.stringify(asked.body)).toContain('echo: say one');
    expect((await h.runtime.getSession(session.id)).session.nativeSessionId).toBe(threadId);

    // Another node: the same store, a CODEX_HOME that never saw the thread.
    await stopWorker(h.runtime, session.id);
    const otherHome = join(h.root, 'other-node', '.codex');
    mkdirSync(otherHome, { recursive: true });
    const other = await createRuntime({
      dataDir: h.dataDir,
      env: { ...h.env, CODEX_HOME: otherHome },
      pollMs: 25,
    });
    try {
      await turn(other, session.id, 'say three');
      expect(userTexts(h.model.conversationRequests().at(-1)!)).toEqual(['say one', 'say two', 'say three']);
      expect(rolloutFiles(otherHome)).toHaveLength(1);
      await stopWorker(other, session.id);
    } finally {
      await other.close();
    }
    const journal = await readJournal(h.runtime, session.id);
    expect(journal.filter(isEvent('agent.error'))).toEqual([]);
    // Every turn's usage is its own, not the thread's running total.
    for (const completed of journal.filter(isEvent('agent.turn.completed'))) {
      expect(dataOf(completed).usage).toMatchObject({
        inputTokens: 1000,
        cacheReadInputTokens: 400,
        outputTokens: 100,
      });
    }
  });
});

describe('codex turn cost', () => {
  it('priced from the default table, from AGENTD_CODEX_PRICES, and 0 for a model without a price', {
    timeout: 120_000,
  }, async () => {
    harness = await createHarness({
      backend: 'codex',
      script: echo,
      env: { AGENTD_CODEX_PRICES: JSON.stringify({ 'house-*': { input: 1, cachedInput: 0.5, output: 2 } }) },
    });
    const h = harness;
    const priced = async (model: string) => {
      const { session } = await h.runtime.createSession({ backend: 'codex', model, cwd: h.cwd });
      const events = await turn(h.runtime, session.id, `say ${model}`);
      // A second turn on the same thread: its usage and cost are its own, not the running total's.
      const next = await turn(h.runtime, session.id, `say ${model} again`);
      await stopWorker(h.runtime, session.id);
      return [completedOf(events), completedOf(next)];
    };
    // gpt-5.4: 600 fresh input × $2.50 + 400 cached × $0.25 + 100 output × $15, per million.
    for (const completed of await priced('gpt-5.4')) {
      expect(completed.costUsd).toBeCloseTo(0.0031, 10);
      expect(completed.costEstimated).toBe(true);
      expect(completed.modelUsage).toEqual({
        'gpt-5.4': expect.objectContaining({ inputTokens: 1000, costUsd: completed.costUsd }),
      });
    }
    // house-model-1, by the server's prefix entry: 600 × $1 + 400 × $0.50 + 100 × $2.
    for (const completed of await priced('house-model-1')) {
      expect(completed.costUsd).toBeCloseTo(0.001, 10);
      expect(completed.costEstimated).toBe(true);
    }
    for (const completed of await priced('unpriced-model')) {
      expect(completed.costUsd).toBe(0);
      expect(completed.costEstimated).toBeUndefined();
    }
  });

  it('a malformed AGENTD_CODEX_PRICES fails the start with agent_start_failed; the input stays accepted', async () => {
    harness = await createHarness({
      backend: 'codex',
      script: echo,
      env: { AGENTD_CODEX_PRICES: '{"gpt-5": 3}' },
    });
    const h = harness;
    const { session } = await h.runtime.createSession({ backend: 'codex', prompt: 'say hi', cwd: h.cwd });
    const events = await readUntil(h.runtime, session.id, isEvent('execution.failed'));
    const error = dataOf(events.at(-1)!).error as { code: string; message: string };
    expect(error.code).toBe('agent_start_failed');
    expect(error.message).toContain('AGENTD_CODEX_PRICES');
    expect((await h.runtime.listInputs(session.id)).map((input) => input.state)).toEqual(['accepted']);
    expect(h.model.conversationRequests()).toHaveLength(0);
  });
});
