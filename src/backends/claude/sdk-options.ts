import type { Options } from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeConfig } from '../../config/claude-config.js';
import { claudeConfigDir, preferLocalTranscript } from './local-transcript.js';

/**
 * Builds the SDK's options from agentd's config. `claude` gets the parent's environment plus the
 * config's `env`; credentials travel only this way, never through the store.
 */
export function buildSdkOptions(config: ClaudeConfig, extra: Partial<Options> = {}): Options {
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...config.env,
    // claude retries one API call on its own; keep its count in line with agentd's so a storm of
    // errors is bounded by (maxRetries + 1)² calls, not by claude's default of 10.
    CLAUDE_CODE_MAX_RETRIES: String(config.retry.maxRetries),
  };
  const options: Options = { cwd: config.cwd ?? process.cwd(), env, ...extra };
  if (config.model !== undefined) options.model = config.model;
  if (config.fallbackModel !== undefined) options.fallbackModel = config.fallbackModel;
  if (config.tools !== undefined) options.tools = config.tools;
  if (config.allowedTools !== undefined) {
    // With a permission callback, the SDK warns that bare allowedTools shadow it. The same rules
    // given as flag settings behave identically (Claude's own matcher) without the warning.
    if (extra.canUseTool) options.settings = { permissions: { allow: config.allowedTools } };
    else options.allowedTools = config.allowedTools;
  }
  if (config.disallowedTools !== undefined) options.disallowedTools = config.disallowedTools;
  if (typeof config.systemPrompt === 'string') options.systemPrompt = config.systemPrompt;
  else if (config.systemPrompt !== undefined) {
    options.systemPrompt = { type: 'preset', preset: 'claude_code', append: config.systemPrompt.append };
  }
  if (config.maxTurns !== undefined) options.maxTurns = config.maxTurns;
  if (config.permissionMode !== undefined) options.permissionMode = config.permissionMode;
  if (config.maxBudgetUsd !== undefined) options.maxBudgetUsd = config.maxBudgetUsd;
  if (config.effort !== undefined) options.effort = config.effort;
  if (config.additionalDirectories !== undefined)
    options.additionalDirectories = config.additionalDirectories;
  if (config.mcpServers !== undefined) options.mcpServers = config.mcpServers as Options['mcpServers'];
  if (config.strictMcpConfig !== undefined) options.strictMcpConfig = config.strictMcpConfig;
  if (config.resume !== undefined) options.resume = config.resume;
  // A resume mirrored through agentd's store reads claude's own copy when it is as fresh, unless
  // it cuts the conversation (a rollback): claude resumed in place from a cut leaves its file
  // ending on the cut-off branch for the next resume (0175).
  if (options.resume !== undefined && options.sessionStore && options.resumeSessionAt === undefined)
    options.sessionStore = preferLocalTranscript(options.sessionStore, claudeConfigDir(env));
  if (config.settingSources !== undefined) options.settingSources = config.settingSources;
  if (config.skills !== undefined) options.skills = config.skills;
  if (config.plugins !== undefined) options.plugins = config.plugins.map((path) => ({ type: 'local', path }));
  if (config.includePartialMessages !== undefined)
    options.includePartialMessages = config.includePartialMessages;
  return options;
}
