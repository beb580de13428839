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

  it('feishu: secrets by variable name only; webhook mode needs the verification token', () => {
    const feishu = { appId: 'cli_a1b2c3d4e5f60718', appSecretEnv: 'FEISHU_APP_SECRET' };
    expect(
      parseServerConfig({ bridges: { feishu: { ...feishu, verificationTokenEnv: 'FEISHU_TOKEN' } } }).bridges,
    ).toEqual({ feishu: { ...feishu, verificationTokenEnv: 'FEISHU_TOKEN' } });
    expect(
      parseServerConfig({ bridges: { feishu: { ...feishu, mode: 'websocket' } } }).bridges?.feishu?.mode,
    ).toBe('websocket');
    let noToken: unknown;
    try {
      parseServerConfig({ bridges: { feishu } });
    } catch (error) {
      noToken = error;
    }
    expect(noToken).toBeInstanceOf(ConfigError);
    expect((noToken as ConfigError).message).toContain('verificationTokenEnv');
    expect(() =>
      parseServerConfig({ bridges: { feishu: { ...feishu, verificationTokenEnv: 'T', appSecret: 'shh' } } }),
    ).toThrow(ConfigError);
    expect(() =>
      parseServerConfig({
        bridges: { feishu: { ...feishu, verificationTokenEnv: 'T', domain: 'not a url' } },
      }),
    ).toThrow(ConfigError);
  });

  it('feishu: an app secret variable that is not set is invalid_config naming it; webhook mode needs the server', async () => {
    const config = {
      feishu: {
        appId: 'cli_a1b2c3d4e5f60718',
        appSecretEnv: 'MISSING_FEISHU_SECRET',
        verificationTokenEnv: 'FEISHU_TOKEN',
        domain: 'http://127.0.0.1:9',
      },
    };
    const missing = await startBridges({ runtime: {} as Runtime, config, env: { FEISHU_TOKEN: 't' } }).catch(
      (caught: unknown) => caught,
    );
    expect((missing as ConfigError).code).toBe('invalid_config');
    expect((missing as ConfigError).message).toContain('MISSING_FEISHU_SECRET is not set');
    const noServer = await startBridges({
      runtime: {} as Runtime,
      config,
      env: { FEISHU_TOKEN: 't', MISSING_FEISHU_SECRET: 'the-secret' },
    }).catch((caught: unknown) => caught);
    expect(noServer).toBeInstanceOf(ConfigError);
    expect((noServer as ConfigError).message).toContain('webhook mode needs');
    expect((noServer as ConfigError).message).not.toContain('the-secret');
  });
});
