import type { ClaudeConfig } from '../config/claude-config.js';
import { type BackendName, backendNames, type SessionSpec } from './agent-backend.js';

/**
 * A session's stored config as the runtime writes it: agentd's own fields (model, cwd, permission
 * mode, tools, system prompt, limits), the backend's name, and settings only one backend reads.
 */
type StoredConfig = Partial<ClaudeConfig> & { backend?: unknown } & Pick<
    ClaudeConfig,
    'timeoutSeconds' | 'retry'
  >;

/** The backend a stored session config names: `claude` when it names none (sessions made before Codex). */
export function backendOf(config: Record<string, unknown>): BackendName {
  const named = config.backend;
  return backendNames.find((name) => name === named) ?? 'claude';
}

/** The backend-neutral spec of a session, made from its stored config (with env and resume added). */
export function sessionSpecOf(config: StoredConfig): SessionSpec {
  const spec: SessionSpec = {
    timeoutSeconds: config.timeoutSeconds,
    retry: config.retry,
    settings: config as Record<string, unknown>,
  };
  if (config.model !== undefined) spec.model = config.model;
  if (config.cwd !== undefined) spec.cwd = config.cwd;
  if (config.env !== undefined) spec.env = config.env;
  if (config.resume !== undefined) spec.resume = config.resume;
  if (config.permissionMode !== undefined) spec.permissionMode = config.permissionMode;
  if (config.allowedTools !== undefined) spec.allowedTools = config.allowedTools;
  if (config.includePartialMessages !== undefined)
    spec.includePartialMessages = config.includePartialMessages;
  const prompt = config.systemPrompt;
  const instructions = typeof prompt === 'string' ? prompt : prompt?.append;
  if (instructions) spec.instructions = instructions;
  return spec;
}
