import { afterEach, beforeEach } from 'vitest';
import type { NewSession, SessionRecord, Store } from '../store.js';

/** What every part of a store contract gets: the store under test, fresh for each test. */
export interface ContractContext<S = Store> {
  store(): S;
}

/**
 * Opens a store before each test and closes it after. `createStore` must return an empty store:
 * the list tests count what they see.
 */
export function useFreshStore<S extends { close(): Promise<void> }>(
  createStore: () => Promise<S>,
): ContractContext<S> {
  let current: S | undefined;
  beforeEach(async () => {
    current = await createStore();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    store: () => {
      if (current === undefined) {
        throw new Error('the store is only available inside a test');
      }
      return current;
    },
  };
}

let counter = 0;

/** An id unique within the test run, readable in failure output. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Creates a session with plausible defaults. */
export async function createTestSession(
  store: Store,
  overrides: Partial<NewSession> = {},
): Promise<SessionRecord> {
  const { session } = await store.createSession({
    id: uniqueId('session'),
    provider: 'claude',
    role: 'reviewer',
    model: 'claude-sonnet-4-5',
    cwd: '/work/project',
    config: { permissionMode: 'default', allowedTools: ['Read', 'Grep'] },
    now: 1_000,
    ...overrides,
  });
  return session;
}
