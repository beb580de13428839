import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderRecord, ProviderStorage } from '../store/org-storage.js';
import { checkProvider, providerEnvFor } from './provider-env.js';

const canary = `sk-or-v1-canary-${randomUUID()}`;
const folder = mkdtempSync(join(tmpdir(), 'agentd-provider-env-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function profile(record: Partial<ProviderRecord> & Pick<ProviderRecord, 'name'>): ProviderRecord {
  return {
    kind: 'openrouter',
    baseUrl: null,
    secret: { env: 'OPENROUTER_KEY' },
    models: {},
    createdAt: 1,
    updatedAt: 1,
    ...record,
  };
}

/** Stored profiles by name: the one method the functions read. */
function storeOf(...profiles: ProviderRecord[]): Pick<ProviderStorage, 'getProvider'> {
  const byName = new Map(profiles.map((each) => [each.name, each]));
  return { getProvider: async (name) => byName.get(name) ?? null };
}

/** The error a promise rejects with (fails the test when it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('expected a rejection');
}

const none = storeOf();
const serverEnv = {
  ANTHROPIC_API_KEY: 'sk-ant-server-key',
  ANTHROPIC_BASE_URL: 'https://proxy.example',
  ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-server',
  CLAUDE_CODE_USE_BEDROCK: '1',
};

describe('checkProvider', () => {
  it('offline needs nothing', async () => {
    await expect(checkProvider({ store: none, provider: 'offline', env: {} })).resolves.toBeUndefined();
  });

  it("env: today's variables, checked as today", async () => {
    await expect(
      checkProvider({ store: none, provider: 'env', env: { ANTHROPIC_API_KEY: 'sk-ant-x' } }),
    ).resolves.toBeUndefined();
    const openrouter = { ANTHROPIC_BASE_URL: 'https://openrouter.ai/api', ANTHROPIC_AUTH_TOKEN: 'sk-or-x' };
    await expect(checkProvider({ store: none, provider: 'env', env: openrouter })).resolves.toBeUndefined();
    const error = await failure(checkProvider({ store: none, provider: 'env', env: {} }));
    expect(error).toMatchObject({
      code: 'credentials_missing',
      message: expect.stringContaining('--offline'),
    });
  });

  it('legacy anthropic/openrouter without a stored profile: checked as today', async () => {
    const openrouter = { ANTHROPIC_BASE_URL: 'https://openrouter.ai/api', ANTHROPIC_AUTH_TOKEN: 'sk-or-x' };
    await expect(
      checkProvider({ store: none, provider: 'openrouter', env: openrouter }),
    ).resolves.toBeUndefined();
    const error = await failure(checkProvider({ store: none, provider: 'anthropic', env: openrouter }));
    expect(error).toMatchObject({
      code: 'credentials_missing',
      message: expect.stringContaining('reach openrouter'),
    });
  });

  it('a stored profile named like a legacy provider is that profile', async () => {
    const store = storeOf(profile({ name: 'openrouter', secret: { env: 'MY_OR_KEY' } }));
    const error = await failure(
      checkProvider({ store, provider: 'openrouter', env: { ANTHROPIC_AUTH_TOKEN: 'x' } }),
    );
    expect(error).toMatchObject({
      code: 'credentials_missing',
      message: expect.stringContaining('MY_OR_KEY'),
    });
    await expect(
      checkProvider({ store, provider: 'openrouter', env: { MY_OR_KEY: canary } }),
    ).resolves.toBeUndefined();
  });

  it('a profile whose variable is unset or blank: credentials_missing naming the profile and the variable', async () => {
    const store = storeOf(profile({ name: 'team-or' }));
    for (const env of [{}, { OPENROUTER_KEY: '  ' }]) {
      const error = await failure(checkProvider({ store, provider: 'team-or', env }));
      expect(error.code).toBe('credentials_missing');
      expect(error.message).toContain('team-or');
      expect(error.message).toContain('environment variable OPENROUTER_KEY');
    }
    await expect(
      checkProvider({ store, provider: 'team-or', env: { OPENROUTER_KEY: canary } }),
    ).resolves.toBeUndefined();
  });

  it('a profile whose file is missing, unreadable, empty or relative: credentials_missing naming the file', async () => {
    const empty = join(folder, 'empty-key');
    writeFileSync(empty, '\n');
    const locked = join(folder, 'locked-key');
    writeFileSync(locked, canary);
    chmodSync(locked, 0o000);
    const lockedReadable = process.getuid?.() === 0; // root reads it anyway
    const files = [join(folder, 'absent-key'), empty, 'relative/key', ...(lockedReadable ? [] : [locked])];
    for (const file of files) {
      const store = storeOf(profile({ name: 'filed', secret: { file } }));
      const error = await failure(checkProvider({ store, provider: 'filed', env: {} }));
      expect(error.code).toBe('credentials_missing');
      expect(error.message).toContain('filed');
      expect(error.message).toContain(`the file ${file}`);
    }
  });

  it('an unknown profile: credentials_missing saying it does not exist', async () => {
    const error = await failure(checkProvider({ store: none, provider: 'nope', env: serverEnv }));
    expect(error).toMatchObject({
      code: 'credentials_missing',
      message: 'provider profile nope does not exist',
    });
  });

  it('a custom profile without a base URL: invalid_config', async () => {
    const store = storeOf(profile({ name: 'c', kind: 'custom', baseUrl: null }));
    const error = await failure(checkProvider({ store, provider: 'c', env: { OPENROUTER_KEY: canary } }));
    expect(error.code).toBe('invalid_config');
  });
});

describe('providerEnvFor', () => {
  it('env, legacy and offline add nothing', async () => {
    const env = { ANTHROPIC_API_KEY: 'sk-ant-x' };
    for (const provider of ['env', 'anthropic', 'offline'])
      expect(await providerEnvFor({ store: none, provider, env })).toEqual({});
  });

  it('openrouter: default base URL, the secret as a bearer token, the API key explicitly empty, the server variables blanked', async () => {
    const store = storeOf(profile({ name: 'or' }));
    const env = await providerEnvFor({
      store,
      provider: 'or',
      env: { ...serverEnv, OPENROUTER_KEY: ` ${canary}\n` },
    });
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: 'https://openrouter.ai/api',
      ANTHROPIC_AUTH_TOKEN: canary,
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_SMALL_FAST_MODEL: '',
      ANTHROPIC_MODEL: '',
      CLAUDE_CODE_USE_BEDROCK: '',
      CLAUDE_CODE_OAUTH_TOKEN: '',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: '',
    });
  });

  it('openrouter: the models mapping becomes the default-model variables', async () => {
    const models = {
      opus: 'anthropic/claude-opus-4.5',
      sonnet: 'z-ai/glm-4.7',
      haiku: 'z-ai/glm-4.5-air',
      subagent: 'z-ai/glm-4.7',
    };
    const store = storeOf(profile({ name: 'or', baseUrl: 'http://127.0.0.1:9/api', models }));
    const env = await providerEnvFor({ store, provider: 'or', env: { OPENROUTER_KEY: canary } });
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/api',
      ANTHROPIC_DEFAULT_OPUS_MODEL: models.opus,
      ANTHROPIC_DEFAULT_SONNET_MODEL: models.sonnet,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: models.haiku,
      CLAUDE_CODE_SUBAGENT_MODEL: models.subagent,
    });
  });

  it('anthropic: the secret as the API key, no auth token, its base URL or Anthropic’s (never the server’s)', async () => {
    const store = storeOf(
      profile({ name: 'a', kind: 'anthropic', secret: { env: 'TEAM_KEY' } }),
      profile({
        name: 'a-proxy',
        kind: 'anthropic',
        baseUrl: 'https://gateway.example',
        secret: { env: 'TEAM_KEY' },
      }),
    );
    const env = { ...serverEnv, ANTHROPIC_AUTH_TOKEN: 'server-token', TEAM_KEY: canary };
    expect(await providerEnvFor({ store, provider: 'a', env })).toMatchObject({
      ANTHROPIC_API_KEY: canary,
      ANTHROPIC_AUTH_TOKEN: '',
      ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
    });
    expect(await providerEnvFor({ store, provider: 'a-proxy', env })).toMatchObject({
      ANTHROPIC_BASE_URL: 'https://gateway.example',
    });
  });

  it('custom: its base URL and the secret as a bearer token, read from a file', async () => {
    const file = join(folder, 'custom-key');
    writeFileSync(file, `${canary}\n`);
    const store = storeOf(
      profile({ name: 'c', kind: 'custom', baseUrl: 'https://llm.example', secret: { file } }),
    );
    expect(await providerEnvFor({ store, provider: 'c', env: serverEnv })).toMatchObject({
      ANTHROPIC_BASE_URL: 'https://llm.example',
      ANTHROPIC_AUTH_TOKEN: canary,
      ANTHROPIC_API_KEY: '',
    });
  });

  it('canary: no error ever contains the secret', async () => {
    const file = join(folder, 'canary-key');
    writeFileSync(file, canary);
    const store = storeOf(
      profile({ name: 'custom-no-url', kind: 'custom', baseUrl: null, secret: { file } }),
      profile({ name: 'wrong-var', secret: { env: 'MISSING' } }),
      profile({ name: 'relative', secret: { file: 'canary-key' } }),
    );
    const env = {
      OPENROUTER_KEY: canary,
      ANTHROPIC_AUTH_TOKEN: canary,
      ANTHROPIC_BASE_URL: 'https://openrouter.ai/api',
    };
    for (const provider of ['custom-no-url', 'wrong-var', 'relative', 'unknown', 'anthropic']) {
      for (const call of [checkProvider, providerEnvFor]) {
        const error = await failure(call({ store, provider, env }));
        expect(`${error.message} ${JSON.stringify(error)} ${String(error.stack)}`).not.toContain(canary);
        expect(`${error.message}`).not.toContain(canary.slice(-36));
      }
    }
  });
});
