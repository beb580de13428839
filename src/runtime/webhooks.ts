import { randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '../errors/index.js';
import {
  type WebhookAttemptRecord,
  type WebhookDeliveryRecord,
  type WebhookEventType,
  type WebhookRecord,
  webhookEventTypes,
} from '../store/webhook-storage.js';
import { type Access, resources } from './access.js';
import {
  type ActorOptions,
  defaultOrganization,
  ownerPrincipal,
  type RuntimeContext,
} from './runtime-context.js';

export interface AddWebhookOptions extends ActorOptions {
  /** Where deliveries are POSTed: an http or https URL. */
  url: string;
  /** At least one of `webhookEventTypes`. */
  events: readonly string[];
  /** The environment variable (of every node that sends) holding the signing secret. */
  secretEnv: string;
  /** Only this session's events. @default every session of the organization */
  sessionId?: string;
  /** @default the session's organization, else 'default' */
  organization?: string;
  /** @default a new UUID */
  id?: string;
}

export interface WebhookDeliveryDetails {
  delivery: WebhookDeliveryRecord;
  attempts: WebhookAttemptRecord[];
}

const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Webhooks: subscriptions to events of an organization's sessions, or of one session. The
 * subscription names the environment variable of the signing secret, never the secret. An
 * organization's webhooks take `admin`; a session's take `role.trigger` on its role.
 */
export class Webhooks {
  constructor(
    private readonly context: RuntimeContext,
    private readonly access: Access,
    private readonly clock: () => number,
  ) {}

  async add(options: AddWebhookOptions): Promise<WebhookRecord> {
    const url = checkUrl(options.url);
    if (!Array.isArray(options.events) || options.events.length === 0)
      throw new InvalidInputError(`events must name at least one of ${webhookEventTypes.join(', ')}`);
    const unknown = options.events.filter((type) => !(webhookEventTypes as readonly string[]).includes(type));
    if (unknown.length > 0)
      throw new InvalidInputError(
        `unknown webhook event ${unknown.join(', ')}: use ${webhookEventTypes.join(', ')}`,
        {
          events: unknown,
        },
      );
    if (typeof options.secretEnv !== 'string' || !variableName.test(options.secretEnv))
      throw new InvalidInputError(
        'secretEnv must be the name of an environment variable, such as AGENTD_WEBHOOK_SECRET',
        {
          secretEnv: options.secretEnv,
        },
      );
    let organization = options.organization ?? defaultOrganization;
    if (options.sessionId !== undefined) {
      const session = await this.context.store.getSession(options.sessionId);
      if (!session) throw new NotFoundError(`session ${options.sessionId} not found`);
      organization = options.organization ?? session.organization ?? defaultOrganization;
    }
    await this.requireChange({ organization, sessionId: options.sessionId ?? null }, options);
    return this.context.store.createWebhook({
      id: options.id ?? randomUUID(),
      organization,
      sessionId: options.sessionId ?? null,
      url,
      events: [...new Set(options.events)] as WebhookEventType[],
      secretEnv: options.secretEnv,
      now: this.clock(),
    });
  }

  async list(options: { organization?: string } = {}): Promise<WebhookRecord[]> {
    return this.context.store.listWebhooks(options);
  }

  async get(id: string): Promise<WebhookRecord> {
    const webhook = await this.context.store.getWebhook(id);
    if (!webhook) throw new NotFoundError(`webhook ${id} not found`, { webhookId: id });
    return webhook;
  }

  /** Its deliveries, newest first, each with its attempts. */
  async deliveries(id: string, options: { limit?: number } = {}): Promise<WebhookDeliveryDetails[]> {
    await this.get(id);
    const deliveries = await this.context.store.listWebhookDeliveries({
      webhookId: id,
      limit: options.limit ?? 50,
    });
    return Promise.all(
      deliveries.map(async (delivery) => ({
        delivery,
        attempts: await this.context.store.listWebhookAttempts(delivery.id),
      })),
    );
  }

  /** Sends again: failures back to 0; pending deliveries go on from their next attempt. */
  async enable(id: string, options: ActorOptions = {}): Promise<WebhookRecord> {
    await this.requireChange(await this.get(id), options);
    return this.context.store.setWebhookState({ id, state: 'active', reason: null, now: this.clock() });
  }

  async disable(id: string, options: ActorOptions & { reason?: string } = {}): Promise<WebhookRecord> {
    await this.requireChange(await this.get(id), options);
    return this.context.store.setWebhookState({
      id,
      state: 'disabled',
      reason: options.reason ?? `disabled by ${options.actor ?? ownerPrincipal}`,
      now: this.clock(),
    });
  }

  async remove(id: string, options: ActorOptions = {}): Promise<void> {
    await this.requireChange(await this.get(id), options);
    await this.context.store.removeWebhook(id);
  }

  private async requireChange(
    webhook: { organization: string; sessionId: string | null },
    options: ActorOptions,
  ): Promise<void> {
    const actor = options.actor ?? ownerPrincipal;
    const session = webhook.sessionId ? await this.context.store.getSession(webhook.sessionId) : null;
    if (session?.organization && session.role)
      await this.access.require(actor, 'role.trigger', resources.role(session.organization, session.role));
    else await this.access.require(actor, 'admin', resources.all);
  }
}

function checkUrl(value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new InvalidInputError('url must be an http or https URL', { url: value });
  return url.toString();
}
