import type { CodexOptions, SandboxMode, ThreadOptions } from '@openai/codex-sdk';
import type { SessionSpec } from '../agent-backend.js';

/** Settings only the Codex backend reads, kept in the session's stored config under `codex`. */
export interface CodexSettings {
  /** Overrides the sandbox the permission mode maps to. */
  sandboxMode?: SandboxMode;
  /** Let sandboxed commands reach the network. @default false */
  networkAccess?: boolean;
}

/** The endpoint when the environment names none: OpenAI's. */
export const openAiBaseUrl = 'https://api.openai.com/v1';

/** The name of the model provider agentd defines for codex, pointed at `OPENAI_BASE_URL`. */
const providerName = 'agentd';

/**
 * agentd's permission modes as Codex sandboxes: `plan` only reads, `bypassPermissions` runs
 * unsandboxed, everything else writes inside the working directory. `codex exec` never asks a
 * person (its approval policy is always `never`), so the sandbox is the whole policy.
 */
export function sandboxOf(spec: SessionSpec): SandboxMode {
  const settings = codexSettings(spec);
  if (settings.sandboxMode) return settings.sandboxMode;
  switch (spec.permissionMode) {
    case 'plan':
      return 'read-only';
    case 'bypassPermissions':
      return 'danger-full-access';
    default:
      return 'workspace-write';
  }
}

export function codexSettings(spec: SessionSpec): CodexSettings {
  const stored = spec.settings?.codex;
  return stored && typeof stored === 'object' ? (stored as CodexSettings) : {};
}

/** Strings only: what a child's environment can hold. */
function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const defined: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) defined[name] = value;
  return defined;
}

/**
 * The Codex client's options: `codex` gets the parent's environment plus the spec's (credentials
 * travel only this way), and a model provider of agentd's own that reads its key from
 * `OPENAI_API_KEY` and sends Responses requests to `OPENAI_BASE_URL`, retrying each request at most
 * as often as agentd retries a turn.
 */
export function codexOptions(spec: SessionSpec, codexPath?: string): CodexOptions {
  const env = childEnv({ ...process.env, ...spec.env });
  const baseUrl = env.OPENAI_BASE_URL?.trim() || openAiBaseUrl;
  const retries = Math.max(0, spec.retry.maxRetries);
  const config: NonNullable<CodexOptions['config']> = {
    model_provider: providerName,
    model_providers: {
      [providerName]: {
        name: 'agentd',
        base_url: baseUrl,
        wire_api: 'responses',
        env_key: 'OPENAI_API_KEY',
        request_max_retries: retries,
        stream_max_retries: retries,
      },
    },
    // agentd keeps the journal; codex's own telemetry would only try the network.
    analytics: { enabled: false },
    check_for_update_on_startup: false,
  };
  if (spec.instructions) config.developer_instructions = spec.instructions;
  return { env, config, ...(codexPath ? { codexPathOverride: codexPath } : {}) };
}

/** The thread's options: model, working directory and sandbox. */
export function threadOptions(spec: SessionSpec): ThreadOptions {
  const options: ThreadOptions = {
    workingDirectory: spec.cwd ?? process.cwd(),
    skipGitRepoCheck: true,
    sandboxMode: sandboxOf(spec),
    approvalPolicy: 'never',
    webSearchMode: 'disabled',
    networkAccessEnabled: codexSettings(spec).networkAccess ?? false,
  };
  if (spec.model) options.model = spec.model;
  return options;
}
