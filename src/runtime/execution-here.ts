import { appendFileSync } from 'node:fs';
import type { AgentBackend } from '../backends/agent-backend.js';
import { sessionSpecOf } from '../backends/session-spec.js';
import type { JournalRecord } from '../journal/journal-event.js';
import { toJournalRecord } from '../journal/read-journal.js';
import { toSdkSessionStore } from '../store/session-store-adapter.js';
import type { SessionRecord, Store } from '../store/store.js';
import { startDemoModelFor } from '../testing/demo-model.js';
import { definedEnv, type PreparedRun } from './prepared-run.js';
import { executionConfig } from './session-config.js';

/**
 * The store as an in-process execution writes to it, with every journal record it appends shown to
 * `onRecord` once written (those an input journals with itself included): `agentd run` prints records as they happen, without polling the journal.
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
      if (property === 'updateInputStates') {
        return async (...args: Parameters<Store['updateInputStates']>) => {
          const [options] = args;
          if (!options.events?.length) return target.updateInputStates(...args);
          // Its events are journaled in its own transaction: read back what it appended.
          const after = await target.lastCursor(options.sessionId);
          const changed = await target.updateInputStates(...args);
          if (changed.length > 0)
            for (const record of await target.readEvents(options.sessionId, { after }))
              onRecord(toJournalRecord(record));
          return changed;
        };
      }
      if (property === 'addInput') {
        return async (...args: Parameters<Store['addInput']>) => {
          const added = await target.addInput(...args);
          for (const record of added.events) onRecord(toJournalRecord(record));
          return added;
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
  backend: AgentBackend;
  /** The runtime's environment: what a detached worker would get. */
  env: Record<string, string | undefined>;
  /** What `prepareRun` started for this session before it existed. */
  prepared?: PreparedRun;
}

/** An execution about to run in this process, its `claude` already booting. */
export interface PreparedExecution {
  run(options: { executionId: string; logFile: string }): { done: Promise<number> };
  /** Ends what was started for an execution that will not run. */
  discard(): Promise<void>;
}

/**
 * Prepares an execution in this process, as a detached worker would run it (`worker-main.ts`): the
 * same lease, journal and input feed, and for an offline session its own demo model. `claude` starts
 * now (or already did, in `prepareRun`) with the options the execution will use, so that it boots
 * while the caller journals the input and the execution takes its lease.
 */
export async function prepareExecutionHere(options: ExecutionHereOptions): Promise<PreparedExecution> {
  const { store, session, backend } = options;
  let prepared = options.prepared;
  if (prepared && !prepared.fits(session)) {
    await prepared.discard();
    prepared = undefined;
  }
  prepared?.bindStore(store);
  const demo = prepared ? null : await startDemoModelFor(session);
  const env = prepared?.env ?? { ...definedEnv(options.env), ...demo?.env };
  // The same config as the early one keeps its `claude`; another replaces it.
  backend.prepare?.({
    spec: sessionSpecOf(executionConfig({ stored: session.config, resume: session.nativeSessionId, env })),
    sessionStore: toSdkSessionStore(store),
  });
  const discard = async () => {
    backend.discardPrepared?.();
    await demo?.close();
    await prepared?.discard();
  };
  return {
    discard,
    run: ({ executionId, logFile }) => {
      const log = (line: string) => appendFileSync(logFile, `${line}\n`);
      const done = (async () => {
        // Loaded here: a server's runtime never runs an execution in its own process.
        const { runExecution } = await import('../worker/run-execution.js');
        const execution = runExecution({ store, backend, sessionId: session.id, executionId, env, log });
        // The runtime wakes its workers with SIGUSR2 (a stop, an interrupt); this one is this process.
        const wake = () => execution.wake();
        process.on('SIGUSR2', wake);
        try {
          return await execution.exit;
        } finally {
          process.off('SIGUSR2', wake);
          await discard();
        }
      })();
      return { done };
    },
  };
}
