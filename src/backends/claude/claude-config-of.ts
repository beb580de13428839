import type { ClaudeConfig } from '../../config/claude-config.js';
import type { SessionSpec } from '../agent-backend.js';

/**
 * The Claude config of a session spec: Claude's own settings, with the spec's neutral fields over
 * them (the system prompt stays the settings' own, preset or replacement).
 */
export function claudeConfigOf(spec: SessionSpec): ClaudeConfig {
  const { backend: _backend, ...settings } = (spec.settings ?? {}) as Partial<ClaudeConfig> & {
    backend?: unknown;
  };
  const config: ClaudeConfig = { ...settings, timeoutSeconds: spec.timeoutSeconds, retry: spec.retry };
  if (spec.model !== undefined) config.model = spec.model;
  if (spec.cwd !== undefined) config.cwd = spec.cwd;
  if (spec.env !== undefined) config.env = spec.env;
  if (spec.resume !== undefined) config.resume = spec.resume;
  else delete config.resume;
  if (spec.permissionMode !== undefined)
    config.permissionMode = spec.permissionMode as ClaudeConfig['permissionMode'];
  if (spec.allowedTools !== undefined) config.allowedTools = spec.allowedTools;
  if (spec.includePartialMessages !== undefined) config.includePartialMessages = spec.includePartialMessages;
  if (config.systemPrompt === undefined && spec.instructions)
    config.systemPrompt = { preset: 'claude_code', append: spec.instructions };
  return config;
}
