import { credentialSource } from '../config/credentials.js';
import type { ModelMode } from './http/schemas.js';

export type { ModelMode } from './http/schemas.js';

/** Which model the workers will talk to, judged from the environment they get. */
export function modelModeOf(env: Record<string, string | undefined>): ModelMode {
  if (credentialSource(env) === null) return 'unconfigured';
  if ((env.ANTHROPIC_BASE_URL ?? '').includes('openrouter')) return 'openrouter';
  return 'anthropic';
}

export const modelModeDescriptions: Record<ModelMode, string> = {
  anthropic: 'anthropic',
  openrouter: 'openrouter',
  offline: 'offline (scripted demo model)',
  unconfigured:
    'unconfigured: no credentials, so sessions cannot start (set ANTHROPIC_API_KEY, or use --offline for the demo model)',
};
