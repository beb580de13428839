import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { parseServerConfig } from '../server/server-config.js';
import { startBridges } from './start-bridges.js';

describe('bridges config', () => {
  it('names the token variable; a secret in the config file itself is refused', () => {
    expect(parseServerConfig({ bridges: { telegram: { tokenEnv: 'TELEGRAM_BOT_TOKEN' } } }).bridges).toEqual({
      telegram: { tokenEnv: 'TELEGRAM_BOT_TOKEN' },
    });
    expect(() => parseServerConfig({ bridges: { telegram: { token: '123:abc' } } })).toThrow(ConfigError);
    expect(() => parseServerConfig({ bridges: { telegram: { tokenEnv: '123:abc' } } })).toThrow(ConfigError);
    expect(() => parseServerConfig({ bridges: { slack: {} } })).toThrow(ConfigError);
  });

  it('a token variable that is not set is invalid_config naming the variable, before any platform call', async () => {
    const error = await startBridges({
      // Never reached: the secret is checked first.
      runtime: {} as Runtime,
      config: { telegram: { tokenEnv: 'MISSING_TELEGRAM_TOKEN', apiRoot: 'http://127.0.0.1:9' } },
      env: {},
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('invalid_config');
    expect((error as ConfigError).message).toContain('MISSING_TELEGRAM_TOKEN is not set');
  });

  it('no bridges configured starts none', async () => {
    const running = await startBridges({ runtime: {} as Runtime, config: undefined, env: {} });
    expect(running.platforms).toEqual([]);
    await running.stop();
  });
});
