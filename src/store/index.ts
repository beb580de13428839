export { toSdkSessionStore } from './session-store-adapter.js';
export { SqliteStore, type SqliteStoreOptions } from './sqlite/sqlite-store.js';
export type {
  AcquireLeaseOptions,
  DeliveryState,
  EventRecord,
  ExecutionRecord,
  ExecutionState,
  InputRecord,
  InteractionKind,
  InteractionRecord,
  InteractionState,
  LeaseRecord,
  NewEvent,
  NewSession,
  SessionRecord,
  SessionState,
  Store,
  TranscriptKey,
} from './store.js';
