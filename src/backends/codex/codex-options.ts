import type { SessionSpec } from '../agent-backend.js';
import type { AskForApproval, SandboxMode, SandboxPolicy, ThreadSettings } from './protocol.js';

/** Settings only the Codex backend reads, kept in the session's stored config under `codex`. */
export interface CodexSettings {
  /** Overrides the sandbox the permission mode maps to. */
  sandboxMode?: SandboxMode;
  /** Overrides when codex asks (`untrusted`: before any command it does not know to be read-only). */
  approvalPolicy?: AskForApproval;
  /** Let sandboxed commands reach the network. @default false */
  networkAccess?: boolean;
}

/** The endpoint when the environment names none: OpenAI's. */
export const openAiBaseUrl = 'https://api.openai.com/v1';

/** The name of the model provider agentd defines for codex, pointed at `OPENAI_BASE_URL`. */
const providerName = 'agentd';

export interface CodexPolicy {
  sandbox: SandboxMode;
  approvalPolicy: AskForApproval;
}

/**
 * agentd's permission modes as Codex's sandbox and approval policy:
 *
 * - `plan`: read-only, never asks (nothing to approve: it only reads);
 * - `bypassPermissions`: no sandbox, never asks;
 * - `dontAsk`: writes inside the working directory, never asks (what would need more is refused);
 * - `default`, `acceptEdits`, `auto`: writes inside the working directory and asks a person before
 *   anything leaves the sandbox (Codex's own default, `on-request`).
 *
 * `settings.codex.sandboxMode` and `settings.codex.approvalPolicy` override either half.
 */
export function codexPolicyOf(spec: SessionSpec): CodexPolicy {
  const settings = codexSettings(spec);
  const mapped = ((): CodexPolicy => {
    switch (spec.permissionMode) {
      case 'plan':
        return { sandbox: 'read-only', approvalPolicy: 'never' };
      case 'bypassPermissions':
        return { sandbox: 'danger-full-access', approvalPolicy: 'never' };
      case 'dontAsk':
        return { sandbox: 'workspace-write', approvalPolicy: 'never' };
      default:
        return { sandbox: 'workspace-write', approvalPolicy: 'on-request' };
    }
  })();
  return {
    sandbox: settings.sandboxMode ?? mapped.sandbox,
    approvalPolicy: settings.approvalPolicy ?? mapped.approvalPolicy,
  };
}

/** The sandbox the session's commands run in, as `command/exec` takes it. */
export function sandboxPolicyOf(spec: SessionSpec): SandboxPolicy {
  const networkAccess = codexSettings(spec).networkAccess ?? false;
  switch (codexPolicyOf(spec).sandbox) {
    case 'read-only':
      return { type: 'readOnly', networkAccess };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
    default:
      return {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      };
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

/** `codex`'s environment: the parent's plus the spec's (credentials travel only this way). */
export function codexEnv(spec: SessionSpec): Record<string, string> {
  return childEnv({ ...process.env, ...spec.env });
}

type TomlValue = string | number | boolean;

/** `-c key=value` with the value in TOML (a JSON string is a TOML basic string). */
function override(key: string, value: TomlValue): string[] {
  return ['-c', `${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`];
}

/**
 * The app-server's config overrides (never a file): a model provider of agentd's own that reads its
 * key from `OPENAI_API_KEY` and sends Responses requests to `OPENAI_BASE_URL`, retrying each request
 * at most as often as agentd retries a turn; no web search, analytics or update checks.
 */
export function appServerArgs(spec: SessionSpec, env: Record<string, string>): string[] {
  const baseUrl = env.OPENAI_BASE_URL?.trim() || openAiBaseUrl;
  const retries = Math.max(0, spec.retry.maxRetries);
  const provider = `model_providers.${providerName}`;
  return [
    ...override('model_provider', providerName),
    ...override(`${provider}.name`, 'agentd'),
    ...override(`${provider}.base_url`, baseUrl),
    ...override(`${provider}.wire_api`, 'responses'),
    ...override(`${provider}.env_key`, 'OPENAI_API_KEY'),
    ...override(`${provider}.request_max_retries`, retries),
    ...override(`${provider}.stream_max_retries`, retries),
    ...override('sandbox_workspace_write.network_access', codexSettings(spec).networkAccess ?? false),
    ...override('web_search', 'disabled'),
    // agentd keeps the journal; codex's own telemetry would only try the network.
    ...override('analytics.enabled', false),
    ...override('check_for_update_on_startup', false),
  ];
}

/** What a thread is started (or resumed) with: model, working directory, sandbox, approval policy. */
export function threadSettings(spec: SessionSpec): ThreadSettings {
  const policy = codexPolicyOf(spec);
  const settings: ThreadSettings = {
    cwd: spec.cwd ?? process.cwd(),
    sandbox: policy.sandbox,
    approvalPolicy: policy.approvalPolicy,
  };
  if (spec.model) settings.model = spec.model;
  if (spec.instructions) settings.developerInstructions = spec.instructions;
  return settings;
}
