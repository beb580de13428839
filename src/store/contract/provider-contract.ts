import { describe, expect, it } from 'vitest';
import type { ProviderRecord } from '../org-storage.js';
import type { ContractContext } from './contract-context.js';

export function describeProviderContract(context: ContractContext): void {
  describe('providers', () => {
    const openrouter: Omit<ProviderRecord, 'createdAt' | 'updatedAt'> = {
      name: 'openrouter',
      kind: 'openrouter',
      baseUrl: 'https://openrouter.ai/api',
      secret: { env: 'OPENROUTER_API_KEY' },
      models: { opus: 'anthropic/claude-opus-4.1', haiku: 'z-ai/glm-4.7' },
    };

    it('putProvider: creates, then replaces by name keeping createdAt', async () => {
      const store = context.store();
      const first = await store.putProvider({ ...openrouter, now: 1_000 });
      expect(first).toEqual({
        provider: { ...openrouter, createdAt: 1_000, updatedAt: 1_000 },
        created: true,
      });
      expect(await store.getProvider('openrouter')).toEqual(first.provider);
      const replaced = await store.putProvider({
        ...openrouter,
        kind: 'custom',
        baseUrl: 'https://llm.example',
        secret: { file: '/etc/agentd/key' },
        models: {},
        now: 2_000,
      });
      expect(replaced).toEqual({
        provider: {
          name: 'openrouter',
          kind: 'custom',
          baseUrl: 'https://llm.example',
          secret: { file: '/etc/agentd/key' },
          models: {},
          createdAt: 1_000,
          updatedAt: 2_000,
        },
        created: false,
      });
      expect(await store.getProvider('openrouter')).toEqual(replaced.provider);
    });

    it('putProvider: the built-in env and offline cannot be stored', async () => {
      const store = context.store();
      for (const name of ['env', 'offline']) {
        await expect(store.putProvider({ ...openrouter, name, now: 1 })).rejects.toMatchObject({
          code: 'invalid_input',
        });
      }
      expect(await store.listProviders()).toEqual([]);
    });

    it('listProviders: by name; removeProvider tells whether there was one', async () => {
      const store = context.store();
      await store.putProvider({ ...openrouter, name: 'zeta', now: 1 });
      await store.putProvider({
        name: 'alpha',
        kind: 'anthropic',
        baseUrl: null,
        secret: { env: 'ANTHROPIC_API_KEY' },
        models: {},
        now: 2,
      });
      expect((await store.listProviders()).map((provider) => provider.name)).toEqual(['alpha', 'zeta']);
      expect(await store.removeProvider('zeta')).toBe(true);
      expect(await store.removeProvider('zeta')).toBe(false);
      expect(await store.getProvider('zeta')).toBeNull();
      expect((await store.listProviders()).map((provider) => provider.name)).toEqual(['alpha']);
    });
  });
}
