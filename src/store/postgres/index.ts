/** The PostgreSQL driver, as the subpath `agentd/store/postgres`: several agentd nodes on one database. */

export { PostgresA2aStore } from './postgres-a2a-store.js';
export { PostgresLeadership, type PostgresLeadershipOptions } from './postgres-leadership.js';
export type { LeaseClock } from './postgres-leases.js';
export { PostgresNotifier } from './postgres-notifier.js';
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js';
