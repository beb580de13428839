/**
 * Sessions driven straight through the store and the supervisor, as the runtime drives them but
 * without its checks: these tests are about what a worker does with its session (its provider,
 * skills, commands, budgets), whatever the runtime would have refused before it.
 */
import { randomUUID } from 'node:crypto';
import { type ClaudeConfig, defaultClaudeConfig } from '../../../src/config/claude-config.js';
import { dataPaths } from '../../../src/journal/data-dir.js';
import { journalEntry } from '../../../src/journal/journal-event.js';
import { Supervisor } from '../../../src/runtime/supervisor.js';
import type { ExecutionRecord, InputRecord, SessionRecord } from '../../../src/store/store.js';
import type { Harness } from '../helpers.js';

/** A session of `provider` working in the harness's directory, with `config` over the defaults. */
export async function createWorkerSession(
  h: Harness,
  options: { provider: string; config?: Partial<ClaudeConfig>; organization?: string; role?: string },
): Promise<SessionRecord> {
  const config: ClaudeConfig = { ...defaultClaudeConfig(), cwd: h.cwd, ...options.config };
  const { session } = await h.runtime.store.createSession({
    id: randomUUID(),
    provider: options.provider,
    organization: options.organization ?? null,
    role: options.role ?? null,
    model: config.model ?? null,
    cwd: h.cwd,
    config: JSON.parse(JSON.stringify(config)) as Record<string, unknown>,
    now: Date.now(),
  });
  return session;
}

/** Journals an input as the runtime does (`command` as it marks `/compact`). */
export async function journalInput(
  h: Harness,
  sessionId: string,
  text: string,
  options: { command?: boolean } = {},
): Promise<InputRecord> {
  const store = h.runtime.store;
  const { input } = await store.addInput({
    id: randomUUID(),
    sessionId,
    messageId: randomUUID(),
    text,
    now: Date.now(),
  });
  await store.appendEvents(
    sessionId,
    [
      journalEntry({
        type: 'input.accepted',
        inputId: input.id,
        messageId: input.messageId,
        text,
        ...(options.command ? { command: true } : {}),
      }),
    ],
    { now: Date.now() },
  );
  return input;
}

/** Starts a detached worker for the session with the harness's environment. */
export async function startWorker(h: Harness, sessionId: string): Promise<ExecutionRecord> {
  const store = h.runtime.store;
  const supervisor = new Supervisor({ store, paths: dataPaths(h.dataDir), env: h.env });
  const execution = await store.createExecution({ id: randomUUID(), sessionId, now: Date.now() });
  const identity = supervisor.spawnWorker(execution);
  return store.updateExecution(execution.id, { ...identity, now: Date.now() });
}
