import type { SessionKey, SessionStore, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import type { TranscriptTailReader } from '../backends/claude/local-transcript.js';
import { StoreError } from '../errors/agentd-error.js';
import type { Store, TranscriptKey } from './store.js';

/**
 * The SDK's `SessionStore` (transcript mirror and resume source) on top of an agentd `Store`, so a
 * session's transcript lives beside its journal and any node sharing the store can resume it.
 * `listSessionSummaries` is left out: the SDK then falls back to `listSessions` + `load`.
 */
export function toSdkSessionStore(store: Store): SessionStore & TranscriptTailReader {
  return {
    append: (key, entries) => store.appendTranscript(toTranscriptKey(key), entries),
    load: async (key) => {
      const entries = await store.loadTranscript(toTranscriptKey(key));
      return entries === null ? null : entries.map(toSessionStoreEntry);
    },
    loadTail: async (key) => {
      const entries = await store.loadTranscriptTail(toTranscriptKey(key));
      return entries === null ? null : entries.map(toSessionStoreEntry);
    },
    listSessions: (projectKey) => store.listTranscripts(projectKey),
    delete: (key) => store.deleteTranscript(toTranscriptKey(key)),
    listSubkeys: (key) =>
      store.listTranscriptSubkeys({ projectKey: key.projectKey, sessionId: key.sessionId }),
  };
}

function toTranscriptKey(key: SessionKey): TranscriptKey {
  return key.subpath === undefined
    ? { projectKey: key.projectKey, sessionId: key.sessionId }
    : { projectKey: key.projectKey, sessionId: key.sessionId, subpath: key.subpath };
}

/** Every entry the SDK appends has a string `type`; one without it did not come from the SDK. */
function toSessionStoreEntry(entry: Record<string, unknown>): SessionStoreEntry {
  if (typeof entry.type !== 'string') {
    throw new StoreError({
      code: 'store_corrupt',
      message: 'a stored transcript entry has no string `type`, so it was not written by the SDK',
    });
  }
  return { ...entry, type: entry.type };
}

/**
 * The same SessionStore on a store that is still opening: each call waits for it. For a `claude`
 * started while the store opens (`agentd run`), which reads or writes nothing before its first prompt.
 */
export function toDeferredSdkSessionStore(store: Promise<Store>): SessionStore & TranscriptTailReader {
  const ready = store.then(toSdkSessionStore);
  return {
    append: async (key, entries) => (await ready).append(key, entries),
    load: async (key) => (await ready).load(key),
    loadTail: async (key) => (await ready).loadTail(key),
    listSessions: async (projectKey) => (await ready).listSessions?.(projectKey) ?? [],
    delete: async (key) => (await ready).delete?.(key),
    listSubkeys: async (key) => (await ready).listSubkeys?.(key) ?? [],
  };
}
