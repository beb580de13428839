import { InvalidInputError, NotFoundError, StateError } from '../errors/index.js';
import {
  type ProviderKind,
  type ProviderModels,
  type ProviderRecord,
  providerKinds,
  type SecretRef,
} from '../store/org-storage.js';
import type { Access } from './access.js';
import { type ActorOptions, ownerPrincipal, type RuntimeContext } from './runtime-context.js';

export interface AddProviderOptions extends ActorOptions {
  name: string;
  kind: ProviderKind;
  /** The Anthropic-compatible endpoint, without `/v1`. @default https://openrouter.ai/api for `openrouter`; required for `custom` */
  baseUrl?: string | null;
  /** Where the secret comes from: `{ env: 'OPENROUTER_API_KEY' }` or `{ file: '/run/secrets/key' }`. Never the secret. */
  secret: SecretRef;
  models?: ProviderModels;
}

/** Names that mean something without a stored profile. */
export const builtInProviders = ['env', 'offline'] as const;

const namePattern = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const openRouterBaseUrl = 'https://openrouter.ai/api';

function checkBaseUrl(kind: ProviderKind, baseUrl: string | null | undefined): string | null {
  if (baseUrl === undefined || baseUrl === null || baseUrl === '') {
    if (kind === 'custom') throw new InvalidInputError('a custom provider needs baseUrl', { kind });
    return kind === 'openrouter' ? openRouterBaseUrl : null;
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InvalidInputError(`baseUrl ${baseUrl} is not a URL`, { baseUrl });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidInputError('baseUrl must be http(s)', { baseUrl });
  if (url.username || url.password || url.search)
    throw new InvalidInputError(
      'baseUrl must not carry credentials or a query: name the secret with secret',
      {
        kind,
      },
    );
  const trimmed = baseUrl.replace(/\/+$/, '');
  // claude appends /v1/messages itself.
  if (/\/v1$/.test(trimmed))
    throw new InvalidInputError('baseUrl must not end in /v1: claude adds it', { baseUrl });
  return trimmed;
}

function checkSecret(secret: unknown): SecretRef {
  const value = secret as Partial<Record<'env' | 'file', unknown>> | null;
  const keys = value && typeof value === 'object' ? Object.keys(value) : [];
  if (keys.length === 1 && typeof value?.env === 'string' && envNamePattern.test(value.env))
    return { env: value.env };
  if (keys.length === 1 && typeof value?.file === 'string' && value.file.startsWith('/'))
    return { file: value.file };
  throw new InvalidInputError(
    'secret must name exactly one source: { env: VARIABLE_NAME } or { file: /absolute/path } (never the secret itself)',
  );
}

function checkModels(models: ProviderModels | undefined): ProviderModels {
  const checked: ProviderModels = {};
  for (const key of ['opus', 'sonnet', 'haiku', 'subagent'] as const) {
    const value = models?.[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '')
      throw new InvalidInputError(`models.${key} must be a model id`, { field: `models.${key}` });
    checked[key] = value;
  }
  return checked;
}

/** Provider profiles: how to reach a model, and where its secret comes from. Changing them takes `admin`. */
export class Providers {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
  ) {}

  /** Creates or replaces a profile. */
  async add(options: AddProviderOptions): Promise<{ provider: ProviderRecord; created: boolean }> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    if (typeof options.name !== 'string' || !namePattern.test(options.name))
      throw new InvalidInputError('name must be lowercase letters, digits, . _ - (at most 63)', {
        name: options.name,
      });
    if ((builtInProviders as readonly string[]).includes(options.name))
      throw new InvalidInputError(`${options.name} is a built-in provider`, { name: options.name });
    if (!(providerKinds as readonly string[]).includes(options.kind))
      throw new InvalidInputError(`kind must be one of ${providerKinds.join(', ')}`, { kind: options.kind });
    return this.context.store.putProvider({
      name: options.name,
      kind: options.kind,
      baseUrl: checkBaseUrl(options.kind, options.baseUrl),
      secret: checkSecret(options.secret),
      models: checkModels(options.models),
      now: Date.now(),
    });
  }

  async list(): Promise<ProviderRecord[]> {
    return this.context.store.listProviders();
  }

  async get(name: string): Promise<ProviderRecord> {
    const provider = await this.context.store.getProvider(name);
    if (!provider) throw new NotFoundError(`provider ${name} not found`);
    return provider;
  }

  /** Refused while a role uses it. */
  async remove(name: string, options: ActorOptions = {}): Promise<void> {
    await this.access.require(options.actor ?? ownerPrincipal, 'admin', '*');
    await this.get(name);
    for (const organization of await this.context.store.listOrganizations()) {
      const users = (await this.context.store.listRoles(organization.id)).filter(
        (role) => role.provider === name,
      );
      if (users.length > 0)
        throw new StateError(`provider ${name} is used by role ${organization.id}/${users[0]!.name}`, {
          provider: name,
          roles: users.map((role) => `${organization.id}/${role.name}`),
        });
    }
    await this.context.store.removeProvider(name);
  }

  /** Throws `not_found` unless the name is built in or a stored profile. */
  async requireKnown(name: string): Promise<void> {
    if ((builtInProviders as readonly string[]).includes(name)) return;
    await this.get(name);
  }
}
