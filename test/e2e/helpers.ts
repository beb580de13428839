/**
 * Shared pieces of the end-to-end tests: a data directory with a scripted model, waiting with a
 * deadline, reading the journal, the guarantees of DESIGN.md as checks, and process handling.
 * Everything is real: the runtime spawns detached workers running the real SDK and `claude`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { BackendName } from '../../src/backends/agent-backend.js';
import { createRuntime, type EventRecord, type Runtime } from '../../src/index.js';
import { isProcessAlive, processStartTime } from '../../src/journal/process-identity.js';
import type {
  RecordedRequest,
  ResponsesRequestBody,
  Script,
  ScriptedModel,
  ScriptTurn,
} from '../../src/testing/index.js';
import { requestText, toolResults, userTexts } from '../../src/testing/index.js';
import { assertIsolated, type Env, isolatedEnv } from './isolated-env.js';
import { backendEnv, startBackendModel } from './support/backends.js';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const cliEntry = join(repoRoot, 'bin', 'agentd.js');
const parentFixture = join(repoRoot, 'test', 'e2e', 'fixtures', 'parent.ts');
/** tsx by its path: a bare `--import tsx` resolves from the cwd, which is not the checkout. */
const tsxLoader = import.meta.resolve('tsx');

export { type Env, isolatedEnv } from './isolated-env.js';

/** A model turn asking the user `Which?` with the options A and B (AskUserQuestion). */
export const askWhichTurn: ScriptTurn = {
  content: [
    {
      type: 'tool_use',
      name: 'AskUserQuestion',
      input: {
        questions: [
          {
            question: 'Which?',
            header: 'Pick',
            options: [
              { label: 'A', description: 'a' },
              { label: 'B', description: 'b' },
            ],
            multiSelect: false,
          },
        ],
      },
    },
  ],
};

/**
 * A model that starts `command` as a background shell (Bash with `run_in_background`), then answers
 * `noted` to the tool's result and to claude's notice that the task ended.
 */
export function backgroundShellScript(command: string): Script {
  return (request) =>
    toolResults(request).length > 0 || requestText(request).includes('task-notification')
      ? { text: 'noted' }
      : {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command, description: 'wait a while', run_in_background: true },
            },
          ],
        };
}

/** Waits until `probe` returns a truthy value and returns it; fails with `what` at the deadline. */
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}${detail}`);
    }
    await sleep(options.intervalMs ?? 25);
  }
}

/** A data directory, an agent working directory and a scripted model, with a runtime on them. */
export interface Harness {
  root: string;
  dataDir: string;
  /** The agent's working directory (inside `root`). */
  cwd: string;
  /** What runs the sessions the test creates (`createSession({ backend: h.backend, … })`). */
  backend: BackendName;
  /** The backend's scripted server (Anthropic Messages for `claude`, Responses for `codex`). */
  model: ScriptedModel;
  /**
   * The only environment the runtime, its workers, `claude` and the CLI get: a private home inside
   * `root` (isolated-env.ts), the model's URL and key, plus `env`. None of the developer's shell.
   */
  env: Env;
  runtime: Runtime;
  /** Another runtime on the same data directory, as a second agentd process would have. */
  openRuntime(): Promise<Runtime>;
  /** A process this test started (a parent, a CLI): killed with its group at cleanup. */
  track(child: ChildProcess): ChildProcess;
  cleanup(): Promise<void>;
}

export async function createHarness(options: {
  script: Script;
  env?: Env;
  /** @default 'claude' */
  backend?: BackendName;
}): Promise<Harness> {
  const root = mkdtempSync(join(tmpdir(), 'agentd-e2e-'));
  const dataDir = join(root, 'data');
  const cwd = join(root, 'work');
  mkdirSync(cwd, { recursive: true });
  const backend = options.backend ?? 'claude';
  const model = await startBackendModel(backend, options.script);
  const env = isolatedEnv(root, { ...model.env(), ...backendEnv(backend, root), ...options.env });
  const runtimes: Runtime[] = [];
  const children: ChildProcess[] = [];
  const openRuntime = async () => {
    const runtime = await createRuntime({ dataDir, env });
    runtimes.push(runtime);
    return runtime;
  };
  const runtime = await openRuntime();
  return {
    root,
    dataDir,
    cwd,
    backend,
    model,
    env,
    runtime,
    openRuntime,
    track(child) {
      children.push(child);
      return child;
    },
    async cleanup() {
      for (const child of children) killGroup(child.pid);
      await killWorkers(dataDir);
      for (const each of runtimes) await each.close().catch(() => {});
      await model.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * SIGKILLs every worker (with its `claude`, same process group) that ever ran on the data dir, and
 * the warm pool's entries not taken yet, which no execution names: detached, they would outlive a
 * killed server by a moment and could still write under the test's root while it is removed.
 */
export async function killWorkers(dataDir: string): Promise<void> {
  const pids = warmEntriesOf(dataDir);
  for (const pid of pids) killGroup(pid);
  let runtime: Runtime;
  try {
    // No credentials or settings are needed to find and kill processes.
    runtime = await createRuntime({ dataDir, env: {} });
  } catch {
    await waitFor(() => pids.every((pid) => !isRunning(pid)), {
      what: 'warm entries to exit',
      timeoutMs: 10_000,
    });
    return;
  }
  try {
    for (const session of await runtime.store.listSessions()) {
      for (const execution of await runtime.store.listExecutions(session.id)) {
        if (execution.pid !== null && isProcessAlive(execution.pid, execution.processStartTime)) {
          pids.push(execution.pid);
          killGroup(execution.pid);
        }
      }
    }
    await waitFor(() => pids.every((pid) => !isRunning(pid)), { what: 'workers to exit', timeoutMs: 10_000 });
  } finally {
    await runtime.close();
  }
}

/** Waits until the session's worker has left after its idle timeout, and its process is gone. */
export async function hibernated(runtime: Runtime, sessionId: string): Promise<void> {
  await waitFor(
    async () => {
      const details = await runtime.getSession(sessionId);
      const pid = details.executions.at(-1)?.pid;
      return details.hibernated && pid != null && !isRunning(pid);
    },
    { what: 'the session to hibernate', timeoutMs: 90_000 },
  );
}

export function killGroup(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** One-letter process state from /proc (R, S, T, Z …), or null when there is no such process. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return null;
  }
}

/** Running, sleeping or stopped; not a zombie and not gone. */
export function isRunning(pid: number): boolean {
  const state = processState(pid);
  return state !== null && state !== 'Z' && state !== 'X';
}

/** Worker processes started with `--warm` on the data dir (`Supervisor.spawnWarmEntry`), from /proc. */
function warmEntriesOf(dataDir: string): number[] {
  const root = resolve(dataDir);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.includes('--warm') && (argv.includes(root) || argv.includes(dataDir)))
        pids.push(Number(entry));
    } catch {
      // Gone while listing.
    }
  }
  return pids;
}

/** The direct children of a process, from /proc. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) children.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return children;
}

export { processStartTime };

/** Every event of the session, straight from the store. */
export async function readJournal(runtime: Runtime, sessionId: string): Promise<EventRecord[]> {
  const events: EventRecord[] = [];
  for (;;) {
    const page = await runtime.store.readEvents(sessionId, {
      after: events.at(-1)?.cursor ?? 0,
      limit: 1000,
    });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}

/** Guarantee 4: cursors are exactly 1..N, in order, with no gap and no repeat. */
export function expectGapless(events: EventRecord[]): void {
  expect(events.map((event) => event.cursor)).toEqual(events.map((_, index) => index + 1));
}

/**
 * Follows the session's events from `after` until `until` matches one, and returns everything
 * read. Fails (with what it saw) at the deadline.
 */
export async function readUntil(
  runtime: Runtime,
  sessionId: string,
  until: (event: EventRecord) => boolean,
  options: { after?: number; timeoutMs?: number } = {},
): Promise<EventRecord[]> {
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 45_000;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const seen: EventRecord[] = [];
  try {
    for await (const event of runtime.events(sessionId, {
      after: options.after ?? 0,
      follow: true,
      signal: controller.signal,
    })) {
      seen.push(event);
      if (until(event)) return seen;
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error(
    `no matching event within ${timeoutMs}ms; saw ${seen.map((event) => `${event.cursor}:${event.type}`).join(' ')}`,
  );
}

/** An event's `data` as a record. */
export function dataOf(event: EventRecord): Record<string, unknown> {
  return event.data as Record<string, unknown>;
}

/** Matches an event of `type` written for (or about) `executionId`. */
export function isEvent(type: string, executionId?: string) {
  return (event: EventRecord) =>
    event.type === type && (executionId === undefined || dataOf(event).executionId === executionId);
}

/** The text blocks of the last user message of a request: what the model was asked this time. */
export function lastUserText(request: RecordedRequest): string {
  // A Responses request (codex) carries `input` items instead of `messages`.
  if (Array.isArray((request.body as ResponsesRequestBody | null)?.input))
    return userTexts(request).at(-1) ?? '';
  const messages = request.body?.messages ?? [];
  const last = [...messages].reverse().find((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  if (!Array.isArray(last.content)) return '';
  return (last.content as Array<{ type?: string; text?: string }>)
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '')
    .join('\n');
}

/** How many times the model was given `text` as the new user message of a request. */
export function timesSent(model: ScriptedModel, text: string): number {
  return model.conversationRequests().filter((request) => lastUserText(request).includes(text)).length;
}

const liveStates = new Set(['starting', 'running', 'idle', 'stopping']);

export interface GuaranteeExpectations {
  /** Message ids the runtime acknowledged: each must still be there (guarantee 1). */
  acknowledged?: string[];
  /** Events a client already read: each must still be there, unchanged (guarantees 1 and 4). */
  seen?: EventRecord[];
  /** Interactions that nobody answered: each must still be pending (guarantee 5). */
  pending?: string[];
  /** The scripted model, to check it was given each input at most once (guarantee 2). */
  model?: ScriptedModel;
}

/** DESIGN.md's guarantees 1–5, checked against the store (and the model, when given). */
export async function checkGuarantees(
  runtime: Runtime,
  sessionId: string,
  expectations: GuaranteeExpectations = {},
): Promise<EventRecord[]> {
  const journal = await readJournal(runtime, sessionId);
  // 4: gapless, strictly increasing cursors; a stream already read is a prefix of the journal.
  expectGapless(journal);
  for (const event of expectations.seen ?? []) {
    expect(journal[event.cursor - 1]).toEqual(event);
  }
  // 1: every acknowledged input is still journaled.
  const inputs = await runtime.listInputs(sessionId);
  const messageIds = inputs.map((input) => input.messageId);
  for (const messageId of expectations.acknowledged ?? []) expect(messageIds).toContain(messageId);
  for (const input of inputs) {
    const accepted = journal.filter(
      (event) => event.type === 'input.accepted' && dataOf(event).inputId === input.id,
    );
    expect(accepted, `input ${input.messageId} accepted once in the journal`).toHaveLength(1);
  }
  // 2: no input delivered twice, none silently replayed.
  for (const input of inputs) {
    const deliveries = journal.filter(
      (event) => event.type === 'input.delivered' && dataOf(event).inputId === input.id,
    );
    expect(deliveries.length, `input ${input.messageId} delivered at most once`).toBeLessThanOrEqual(1);
    if (input.state !== 'delivered') expect(deliveries).toHaveLength(0);
    if (expectations.model) {
      expect(
        timesSent(expectations.model, input.text),
        `model given ${input.text} at most once`,
      ).toBeLessThanOrEqual(1);
    }
  }
  // 3: at most one live execution, and the lease (when held) belongs to it.
  const executions = await runtime.listExecutions(sessionId);
  const live = executions.filter((execution) => liveStates.has(execution.state));
  expect(live.length, 'live executions').toBeLessThanOrEqual(1);
  const lease = await runtime.store.getLease(sessionId);
  // An execution that has just ended still holds the lease until its release, a moment after its
  // last event: only a live owner must be the live execution.
  const owner = executions.find((execution) => execution.id === lease?.owner);
  if (owner && liveStates.has(owner.state) && lease!.expiresAt > Date.now()) {
    expect(live.map((execution) => execution.id)).toEqual([owner.id]);
  }
  // 5: interactions nobody answered are still pending.
  for (const id of expectations.pending ?? []) {
    const interaction = await runtime.store.getInteraction(id);
    expect(interaction?.state, `interaction ${id}`).toBe('pending');
  }
  return journal;
}

/** The worker's own log and its captured output. */
export function workerLog(dataDir: string, executionId: string): string {
  const read = (name: string) => {
    try {
      return readFileSync(join(dataDir, 'logs', name), 'utf8');
    } catch {
      return '';
    }
  };
  return read(`${executionId}.log`) + read(`${executionId}.out`);
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `agentd ARGS…` as a user would, in its own process group, with only `env` (an
 * isolatedEnv) and in its private home: a command without `--cwd` never runs in the checkout.
 */
export function spawnCli(args: string[], env: Env): ChildProcess {
  return spawn(process.execPath, [cliEntry, ...args], {
    cwd: assertIsolated(env),
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `agentd ARGS…` to its end. */
export async function runCli(args: string[], env: Env, timeoutMs = 30_000): Promise<CliResult> {
  const child = spawnCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => killGroup(child.pid), timeoutMs);
  const code = await new Promise<number | null>((resolveExit) => child.on('close', resolveExit));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Lines a child prints, as they come. */
export function linesOf(child: ChildProcess): { lines: string[]; closed: Promise<number | null> } {
  const lines: string[] = [];
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const closed = new Promise<number | null>((resolveExit) => child.on('close', resolveExit));
  return { lines, closed };
}

export interface ParentStarted {
  child: ChildProcess;
  lines: string[];
  sessionId: string;
  executionId: string;
  pid: number;
}

/**
 * A separate agentd process (test/e2e/fixtures/parent.ts) that creates a runtime, starts a session
 * and follows its events: the parent whose death the workers must survive.
 */
export async function startParent(harness: Harness, prompt: string): Promise<ParentStarted> {
  const child = harness.track(
    spawn(
      process.execPath,
      ['--import', tsxLoader, parentFixture, harness.dataDir, harness.cwd, prompt, harness.backend],
      {
        cwd: assertIsolated(harness.env),
        env: harness.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    ),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const { lines } = linesOf(child);
  const first = await waitFor(() => lines[0], { what: 'the parent to start a session' }).catch(
    (error: Error) => {
      throw new Error(`${error.message}; its stderr: ${stderr}`);
    },
  );
  const started = JSON.parse(first) as { sessionId: string; executionId: string; pid: number };
  return { child, lines, ...started };
}
