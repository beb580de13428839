import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ClaudeConfig, defaultClaudeConfig } from '../../config/claude-config.js';
import { type ScriptedModel, startScriptedModel } from '../../testing/index.js';
import { AsyncQueue } from '../../util/async-queue.js';
import type { AgentSession, UserInput } from '../agent-backend.js';
import { sessionSpecOf } from '../session-spec.js';
import { ClaudeBackend } from './claude-backend.js';

// `prepare()` starts the real `claude` before its session: the session must take that very process
// when its config matches, and close it (starting its own) when it does not.

let root: string;
let model: ScriptedModel;
let session: AgentSession | undefined;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agentd-early-')));
  model = await startScriptedModel({ script: () => ({ text: 'early answer' }) });
});

afterEach(async () => {
  await session?.close();
  session = undefined;
});

afterAll(async () => {
  await model.close();
  await rm(root, { recursive: true, force: true, maxRetries: 5 });
});

function config(overrides: Partial<ClaudeConfig> = {}): ClaudeConfig {
  return {
    ...defaultClaudeConfig(),
    cwd: root,
    env: {
      ...model.env(),
      CLAUDE_CONFIG_DIR: join(root, 'claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    ...overrides,
  };
}

/** This process's `claude` children (started through setpriv, which execs claude in place). */
function claudeChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (parent === process.pid && /claude/.test(command)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

async function waitForClaude(except: number[] = []): Promise<number[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pids = claudeChildren().filter((pid) => !except.includes(pid));
    if (pids.length > 0 || Date.now() > deadline) return pids;
    await sleep(20);
  }
}

async function waitGone(pid: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (claudeChildren().includes(pid) && Date.now() < deadline) await sleep(50);
}

/** One turn through a session started on `backend`; the pids of claude while it answered. */
async function oneTurn(backend: ClaudeBackend, sessionConfig: ClaudeConfig) {
  const inputs = new AsyncQueue<UserInput>();
  inputs.push({ id: randomUUID(), text: 'hello' });
  session = backend.startSession({
    spec: sessionSpecOf(sessionConfig),
    inputs,
    canUseTool: async () => ({ behavior: 'allow' }),
    resumeDeferredTool: async () => null,
  });
  let answer = '';
  let during: number[] = [];
  for await (const event of session) {
    if (event.type === 'agent.message') {
      answer = event.text;
      during = claudeChildren();
    }
    if (event.type === 'agent.turn.completed' || event.type === 'agent.error') break;
  }
  return { answer, during };
}

describe('ClaudeBackend.prepare', () => {
  it('a session with the same config takes the claude started before it', async () => {
    const backend = new ClaudeBackend();
    backend.prepare({ spec: sessionSpecOf(config()) });
    const early = await waitForClaude();
    expect(early).toHaveLength(1);
    const { answer, during } = await oneTurn(backend, config());
    expect(answer).toBe('early answer');
    expect(during).toEqual(early);
  });

  it('a session with another config closes the early claude and starts its own', async () => {
    // A claude of the test before may still be on its way out: it is not this test's.
    const before = claudeChildren();
    const backend = new ClaudeBackend();
    backend.prepare({ spec: sessionSpecOf(config({ model: 'claude-early-model' })) });
    const early = await waitForClaude(before);
    expect(early).toHaveLength(1);
    const { answer, during } = await oneTurn(backend, config());
    expect(answer).toBe('early answer');
    // The answer came from a claude started for the session; the early one is closed (it may take
    // a moment to exit).
    expect(during.filter((pid) => !early.includes(pid) && !before.includes(pid))).toHaveLength(1);
    await waitGone(early[0]!);
    expect(claudeChildren()).not.toContain(early[0]);
    // The model of the early one never reached the model server: it was never given a prompt.
    expect(model.requests.some((request) => request.body?.model === 'claude-early-model')).toBe(false);
  });

  it('discardPrepared ends a claude no session took', async () => {
    const backend = new ClaudeBackend();
    backend.prepare({ spec: sessionSpecOf(config()) });
    const [pid] = await waitForClaude();
    expect(pid).toBeDefined();
    backend.discardPrepared();
    await waitGone(pid!);
    expect(claudeChildren()).not.toContain(pid);
  });
});
