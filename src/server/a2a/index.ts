export type { AgentCardConfig } from './agent-card.js';
export { agentCardConfigSchema, buildAgentCard } from './agent-card.js';
export type { A2aMount, MountA2aOptions } from './mount.js';
export { mountA2a } from './mount.js';
export type { PushSenderOptions } from './push-sender.js';
export type { EngineTiming, ReconcileReport, SessionDefaults } from './task-engine.js';
export { usageMetadata } from './usage.js';
