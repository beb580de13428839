import { appendFileSync } from 'node:fs';
import type { AgentBackend } from '../backends/agent-backend.js';
import type { JournalRecord } from '../journal/journal-event.js';
import { toJournalRecord } from '../journal/read-journal.js';
import type { SessionRecord, Store } from '../store/store.js';
import { startDemoModelFor } from '../testing/demo-model.js';

/**
 * The store as an in-process execution writes to it, with every journal record it appends shown to
 * `onRecord` once written: `agentd run` prints records as they happen, without polling the journal.
 */
export function tapJournal(store: Store, onRecord: (record: JournalRecord) => void): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'appendEvents') {
        return async (...args: Parameters<Store['appendEvents']>) => {
          const records = await target.appendEvents(...args);
          for (const record of records) onRecord(toJournalRecord(record));
          return records;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export interface ExecutionHereOptions {
  store: Store;
  session: SessionRecord;
  executionId: string;
  backend: AgentBackend;
  /** The runtime's environment: what a detached worker would get. */
  env: Record<string, string | undefined>;
  logFile: string;
}

/**
 * Runs an execution in this process, as a detached worker would run it (`worker-main.ts`): the same
 * lease, journal and input feed, and for an offline session its own demo model.
 */
export function runExecutionHere(options: ExecutionHereOptions): { done: Promise<number> } {
  const { store, session, executionId, backend } = options;
  const log = (line: string) => appendFileSync(options.logFile, `${line}\n`);
  const done = (async () => {
    // Loaded here: a server's runtime never runs an execution in its own process.
    const { runExecution } = await import('../worker/run-execution.js');
    const demo = await startDemoModelFor(session);
    const credentials: Record<string, string> = {};
    for (const [name, value] of Object.entries(options.env))
      if (value !== undefined) credentials[name] = value;
    const execution = runExecution({
      store,
      backend,
      sessionId: session.id,
      executionId,
      env: { ...credentials, ...demo?.env },
      log,
    });
    // The runtime wakes its workers with SIGUSR2 (a stop, an interrupt); this one is this process.
    const wake = () => execution.wake();
    process.on('SIGUSR2', wake);
    try {
      return await execution.exit;
    } finally {
      process.off('SIGUSR2', wake);
      await demo?.close();
    }
  })();
  return { done };
}
