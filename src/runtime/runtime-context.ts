import type { ClaudeConfig } from '../config/claude-config.js';
import type { DataPaths } from '../journal/data-dir.js';
import type { SkillStore } from '../skills/skill-store.js';
import type { Store } from '../store/store.js';
import type { Supervisor } from './supervisor.js';

/** What the runtime's parts (roles, channels, grants, budgets) share. */
export interface RuntimeContext {
  store: Store;
  paths: DataPaths;
  skills: SkillStore;
  supervisor: Supervisor;
  env: Record<string, string | undefined>;
  baseConfig: ClaudeConfig;
  offline: boolean;
}

/** Who asks. The built-in `owner` (the local operator, and the HTTP API's configured tokens) may do everything. */
export interface ActorOptions {
  /** The acting principal's id. @default 'owner' */
  actor?: string;
}

export const ownerPrincipal = 'owner';
/** The organization and project a fresh data dir has, and that channels bound without one get. */
export const defaultOrganization = 'default';
export const defaultProject = 'default';
