import { CredentialsMissingError } from '../errors/index.js';

type Env = Record<string, string | undefined>;

export type CredentialSource = 'api_key' | 'auth_token' | 'oauth_token' | 'cloud';

/**
 * Where a session's model calls go: Anthropic (and compatible endpoints), OpenRouter's Anthropic
 * skin, or `offline`, the built-in demo model that each worker of the session starts for itself.
 */
export type Provider = 'anthropic' | 'openrouter' | 'offline';

const set = (env: Env, name: string) => (env[name] ?? '').trim().length > 0;

/**
 * Which credentials `claude` will use, read from the environment, or null when it has none.
 * OpenRouter and other Anthropic-compatible endpoints use ANTHROPIC_BASE_URL + ANTHROPIC_AUTH_TOKEN.
 */
export function credentialSource(env: Env): CredentialSource | null {
  if (set(env, 'ANTHROPIC_API_KEY')) return 'api_key';
  if (set(env, 'ANTHROPIC_AUTH_TOKEN')) return 'auth_token';
  if (set(env, 'CLAUDE_CODE_OAUTH_TOKEN')) return 'oauth_token';
  if (set(env, 'CLAUDE_CODE_USE_BEDROCK') || set(env, 'CLAUDE_CODE_USE_VERTEX')) return 'cloud';
  return null;
}

/** The provider an environment's credentials reach (never `offline`: that is chosen, not found). */
export function providerOf(env: Env): Provider {
  return /openrouter\.ai/i.test(env.ANTHROPIC_BASE_URL ?? '') ? 'openrouter' : 'anthropic';
}

export const missingCredentialsHelp = [
  'no model credentials found. Set one of:',
  '  ANTHROPIC_API_KEY=sk-ant-...                          (Anthropic)',
  '  ANTHROPIC_BASE_URL=https://openrouter.ai/api ANTHROPIC_AUTH_TOKEN=sk-or-... ANTHROPIC_API_KEY=""',
  '                                                        (OpenRouter or another Anthropic-compatible endpoint)',
  '  CLAUDE_CODE_OAUTH_TOKEN=...                           (a Claude subscription token)',
  'or try agentd without credentials: --offline (agentd run/start/serve) uses the built-in demo model',
].join('\n');

/**
 * The one check before a worker starts: the environment it will get must reach the session's
 * provider. An offline session needs nothing (its worker brings the demo model). Throws
 * `CredentialsMissingError` saying what to set.
 */
export function requireProviderCredentials(options: { provider: string; env: Env }): void {
  const { provider, env } = options;
  if (provider === 'offline') return;
  if (credentialSource(env) === null) throw new CredentialsMissingError(missingCredentialsHelp, { provider });
  const reached = providerOf(env);
  if (reached !== provider) {
    throw new CredentialsMissingError(
      `this session uses the ${provider} provider, but the credentials found reach ${reached}: set the ${provider} credentials (ANTHROPIC_BASE_URL and its key) in the environment that starts its workers`,
      { provider },
    );
  }
}
