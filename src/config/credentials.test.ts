import { describe, expect, it } from 'vitest';
import { providerOf, requireProviderCredentials } from './credentials.js';

describe('requireProviderCredentials', () => {
  it('an offline session needs nothing', () => {
    expect(() => requireProviderCredentials({ provider: 'offline', env: {} })).not.toThrow();
  });

  it('without credentials: credentials_missing, naming what to set and the offline way', () => {
    expect(() =>
      requireProviderCredentials({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: ' ' } }),
    ).toThrow(
      expect.objectContaining({
        code: 'credentials_missing',
        message: expect.stringMatching(/ANTHROPIC_API_KEY[\s\S]*--offline/),
      }),
    );
  });

  it("credentials that reach another provider than the session's: credentials_missing", () => {
    const openrouter = { ANTHROPIC_BASE_URL: 'https://openrouter.ai/api', ANTHROPIC_AUTH_TOKEN: 'sk-or-x' };
    expect(providerOf(openrouter)).toBe('openrouter');
    expect(() => requireProviderCredentials({ provider: 'anthropic', env: openrouter })).toThrow(
      expect.objectContaining({
        code: 'credentials_missing',
        message: expect.stringContaining('reach openrouter'),
      }),
    );
    expect(() => requireProviderCredentials({ provider: 'openrouter', env: openrouter })).not.toThrow();
    expect(() =>
      requireProviderCredentials({ provider: 'anthropic', env: { ANTHROPIC_API_KEY: 'sk-ant-x' } }),
    ).not.toThrow();
  });
});
