import { CredentialsMissingError } from '../errors/index.js';

type Env = Record<string, string | undefined>;

export type CredentialSource = 'api_key' | 'auth_token' | 'oauth_token' | 'cloud';

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

export const missingCredentialsHelp = [
  'no model credentials found. Set one of:',
  '  ANTHROPIC_API_KEY=sk-ant-...                          (Anthropic)',
  '  ANTHROPIC_BASE_URL=https://openrouter.ai/api ANTHROPIC_AUTH_TOKEN=sk-or-... ANTHROPIC_API_KEY=""',
  '                                                        (OpenRouter or another Anthropic-compatible endpoint)',
  '  CLAUDE_CODE_OAUTH_TOKEN=...                           (a Claude subscription token)',
].join('\n');

/** Throws `CredentialsMissingError`, saying what to set, when the environment has no credentials. */
export function requireCredentials(env: Env): CredentialSource {
  const source = credentialSource(env);
  if (source === null) throw new CredentialsMissingError(missingCredentialsHelp);
  return source;
}
