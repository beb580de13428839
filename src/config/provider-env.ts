/**
 * Provider profiles as `claude` sees them: the check before an input is accepted, and the
 * environment a worker gives `claude` for its session's provider. A profile names where its secret
 * is (an environment variable or a file of the server's); the secret is read here, when a worker
 * starts, and travels only in the child's environment: never into an error, a log or the store.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { ConfigError, CredentialsMissingError } from '../errors/index.js';
import type { ProviderRecord, ProviderStorage, SecretRef } from '../store/org-storage.js';
import { providerOf, requireProviderCredentials } from './credentials.js';

type Env = Record<string, string | undefined>;

export interface ProviderEnvOptions {
  /** Where stored profiles are looked up. */
  store: Pick<ProviderStorage, 'getProvider'>;
  /** The session's provider: `env`, `offline`, a legacy `anthropic`/`openrouter`, or a stored profile's name. */
  provider: string;
  /** The environment that starts workers: where `{ env }` secrets and today's variables are read. */
  env: Env;
}

/** OpenRouter's Anthropic-compatible endpoint (`claude` adds `/v1/messages` itself). */
export const openRouterBaseUrl = 'https://openrouter.ai/api';
const anthropicBaseUrl = 'https://api.anthropic.com';

/** Names older sessions stored for today's process-wide credentials, before profiles existed. */
const legacyProviders = new Set(['anthropic', 'openrouter']);

/**
 * Variables of the worker's own environment that would otherwise decide where a profile session's
 * requests go, or with which credentials and models: a profile session sets each, blank unless the
 * profile gives a value. `claude` reads a blank variable as unset (docs/decisions/0061).
 */
const overriddenVariables = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_CUSTOM_HEADERS',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'CLAUDE_CODE_SUBAGENT_MODEL',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
] as const;

/**
 * Throws `CredentialsMissingError` unless a worker for this provider could reach its model: the
 * runtime asks before it accepts an input that no live worker will take. `offline` needs nothing;
 * `env` and the legacy names need today's variables; a stored profile needs its secret readable
 * and non-empty. An unknown name is `credentials_missing` too: no worker could start with it.
 */
export async function checkProvider(options: ProviderEnvOptions): Promise<void> {
  const resolved = await resolveProvider(options);
  if (resolved.kind === 'profile') await readSecret(resolved.profile, options.env);
}

/**
 * The environment a worker gives `claude` for its session's provider, over its own: for a stored
 * profile, its endpoint, its secret and its model mapping, with every conflicting variable of the
 * worker's environment blanked. `env`, the legacy names and `offline` add nothing (today's
 * variables; the offline demo model is started by the worker itself). Throws like `checkProvider`.
 */
export async function providerEnvFor(options: ProviderEnvOptions): Promise<Record<string, string>> {
  const resolved = await resolveProvider(options);
  if (resolved.kind !== 'profile') return {};
  const { profile } = resolved;
  const secret = await readSecret(profile, options.env);
  const env: Record<string, string> = Object.fromEntries(overriddenVariables.map((name) => [name, '']));
  if (profile.kind === 'anthropic') {
    env.ANTHROPIC_API_KEY = secret;
    env.ANTHROPIC_BASE_URL = profile.baseUrl ?? anthropicBaseUrl;
  } else {
    // OpenRouter and other Anthropic-compatible endpoints take the key as a bearer token; an empty
    // ANTHROPIC_API_KEY keeps claude from sending an `x-api-key` header beside it.
    env.ANTHROPIC_AUTH_TOKEN = secret;
    env.ANTHROPIC_BASE_URL = profile.baseUrl ?? openRouterBaseUrl;
  }
  const { models } = profile;
  if (models.opus) env.ANTHROPIC_DEFAULT_OPUS_MODEL = models.opus;
  if (models.sonnet) env.ANTHROPIC_DEFAULT_SONNET_MODEL = models.sonnet;
  if (models.haiku) env.ANTHROPIC_DEFAULT_HAIKU_MODEL = models.haiku;
  if (models.subagent) env.CLAUDE_CODE_SUBAGENT_MODEL = models.subagent;
  return env;
}

type ResolvedProvider = { kind: 'offline' } | { kind: 'env' } | { kind: 'profile'; profile: ProviderRecord };

async function resolveProvider(options: ProviderEnvOptions): Promise<ResolvedProvider> {
  const { store, provider, env } = options;
  if (provider === 'offline') return { kind: 'offline' };
  if (provider === 'openai') {
    // A Codex session's: today's OPENAI_API_KEY (and OPENAI_BASE_URL, when set) of the worker's environment.
    if ((env.OPENAI_API_KEY ?? '').trim() === '')
      throw new CredentialsMissingError(
        'a codex session needs OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than OpenAI’s) in the environment that starts its workers',
        { provider },
      );
    return { kind: 'env' };
  }
  if (provider === 'env') {
    // The implicit default profile: whatever today's variables reach.
    requireProviderCredentials({ provider: providerOf(env), env });
    return { kind: 'env' };
  }
  const profile = await store.getProvider(provider);
  if (profile) {
    if (profile.kind === 'custom' && !profile.baseUrl)
      throw new ConfigError(`provider profile ${provider} (custom) has no base URL`, { provider });
    return { kind: 'profile', profile };
  }
  if (legacyProviders.has(provider)) {
    requireProviderCredentials({ provider, env });
    return { kind: 'env' };
  }
  throw new CredentialsMissingError(`provider profile ${provider} does not exist`, { provider });
}

/** Where a secret comes from, in words for an error message: never the secret. */
function secretSource(secret: SecretRef): string {
  return 'env' in secret ? `the environment variable ${secret.env}` : `the file ${secret.file}`;
}

/** The profile's secret, trimmed; `credentials_missing` naming the profile and the source when unusable. */
async function readSecret(profile: ProviderRecord, env: Env): Promise<string> {
  const { name, secret } = profile;
  const missing = (why: string) =>
    new CredentialsMissingError(
      `provider profile ${name} has no secret: ${why}. Its secret comes from ${secretSource(secret)} of the process that starts agentd's workers`,
      { provider: name },
    );
  if ('env' in secret) {
    const value = (env[secret.env] ?? '').trim();
    if (!value) throw missing(`${secret.env} is not set`);
    return value;
  }
  if (!isAbsolute(secret.file)) throw missing(`${secret.file} is not an absolute path`);
  let value: string;
  try {
    value = (await readFile(secret.file, 'utf8')).trim();
  } catch (error) {
    // The error's code only: its message names nothing more than the path, but keep it that way.
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw missing(`${secret.file} cannot be read (${code})`);
  }
  if (!value) throw missing(`${secret.file} is empty`);
  return value;
}
