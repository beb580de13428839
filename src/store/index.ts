export type { A2aPushConfigRecord, A2aStore, A2aTaskRecord, ListA2aTasksOptions } from './a2a-store.js';
export { toSdkSessionStore } from './session-store-adapter.js';
export { SqliteA2aStore } from './sqlite/sqlite-a2a-store.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export type {
  AcquireLeaseOptions,
  DeliveryState,
  EventRecord,
  EventStorage,
  ExecutionRecord,
  ExecutionState,
  ExecutionStorage,
  InputRecord,
  InputStorage,
  InteractionKind,
  InteractionRecord,
  InteractionState,
  InteractionStorage,
  LeaseRecord,
  LeaseStorage,
  NewEvent,
  NewSession,
  SessionRecord,
  SessionState,
  SessionStorage,
  Store,
  TranscriptKey,
  TranscriptStorage,
} from './store.js';
