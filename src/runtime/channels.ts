import { checkProvider } from '../config/provider-env.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/index.js';
import type { ChannelRecord, RoleRecord } from '../store/org-storage.js';
import type { SessionRecord } from '../store/store.js';
import { type Access, resources } from './access.js';
import { handleMessage, type MessageOptions, type MessageResult } from './messages.js';
import type { Roles } from './roles.js';
import type { CreateSessionOptions, Runtime } from './runtime.js';
import {
  type ActorOptions,
  defaultOrganization,
  defaultProject,
  ownerPrincipal,
  type RuntimeContext,
} from './runtime-context.js';
import { providerOfRole } from './session-config.js';

export interface BindChannelOptions extends ActorOptions {
  key: string;
  /** @default 'default' */
  organization?: string;
  /** @default 'default' */
  project?: string;
  /** @default the organization's default role */
  role?: string;
}

export interface ChannelMessageOptions extends MessageOptions, ActorOptions {
  /** Select this role first (as `selectRole` does, with the same permission check). */
  role?: string;
  /** Where a channel that does not exist yet is bound. @default 'default' */
  organization?: string;
  /** @default 'default' */
  project?: string;
}

export interface ChannelSessionOptions extends ActorOptions {
  /** Select this role first (as `selectRole` does, with the same permission check). */
  role?: string;
  /** Where a channel that does not exist yet is bound. @default 'default' */
  organization?: string;
  /** @default 'default' */
  project?: string;
  /** For a session made now: its working directory. @default the runtime's */
  cwd?: string;
  /** For a session made now: settings over the role's. */
  config?: CreateSessionOptions['config'];
}

export interface ChannelDetails {
  channel: ChannelRecord;
  /** The role the channel's messages go to (its organization's default when the selected one was deleted). */
  role: RoleRecord;
  /** The channel's current session for the selected role, if any. */
  session: SessionRecord | null;
}

const keyPattern = /^[^\s/][^\s]{0,255}$/;

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || !keyPattern.test(key))
    throw new InvalidInputError('a channel key is 1–256 characters without spaces, not starting with /', {
      key,
    });
  return key;
}

/**
 * Channels: external conversation keys (a chat group, a project thread, an A2A context) in a
 * project, each selecting one role. A channel keeps one session per role: switching roles routes
 * later messages to that role's own session, and switching back continues the first one
 * (docs/decisions/0062-channels-keep-a-session-per-role.md).
 */
export class Channels {
  constructor(
    private readonly runtime: Runtime,
    private readonly context: RuntimeContext,
    private readonly access: Access,
    private readonly roles: Roles,
  ) {}

  /** Creates the channel (idempotent for the same organization and project). Takes `agent.trigger` on the project. */
  async bind(options: BindChannelOptions): Promise<{ channel: ChannelRecord; created: boolean }> {
    const key = checkKey(options.key);
    const organization = options.organization ?? defaultOrganization;
    const project = options.project ?? defaultProject;
    const actor = options.actor ?? ownerPrincipal;
    await this.access.require(actor, 'agent.trigger', resources.project(organization, project));
    await this.roles.organization(organization);
    const role = options.role
      ? await this.roles.get(options.role, { organization })
      : await this.roles.defaultRole({ organization });
    if (options.role)
      await this.access.require(actor, 'role.trigger', resources.role(organization, role.name));
    return this.context.store.bindChannel({ key, organization, project, role: role.name, now: Date.now() });
  }

  async get(key: string): Promise<ChannelDetails> {
    const channel = await this.requireChannel(key);
    const role = await this.effectiveRole(channel);
    const sessionId = await this.context.store.getChannelSession(key, role.name);
    const session = sessionId ? await this.context.store.getSession(sessionId) : null;
    return { channel, role, session };
  }

  async list(options: { organization?: string } = {}): Promise<ChannelRecord[]> {
    return this.context.store.listChannels(options);
  }

  /**
   * Selects the role later messages go to. Needs `agent.trigger` on the channel's project and
   * `role.trigger` on the role; otherwise `forbidden` and nothing changes. Inputs accepted before
   * stay with the role they were accepted under.
   */
  async selectRole(key: string, role: string, options: ActorOptions = {}): Promise<ChannelDetails> {
    const channel = await this.requireChannel(key);
    const actor = options.actor ?? ownerPrincipal;
    await this.access.require(
      actor,
      'agent.trigger',
      resources.project(channel.organization, channel.project),
    );
    await this.access.require(actor, 'role.trigger', resources.role(channel.organization, role));
    await this.roles.get(role, { organization: channel.organization });
    if (channel.role !== role) await this.context.store.selectChannelRole({ key, role, now: Date.now() });
    return this.get(key);
  }

  /**
   * A message to the channel: text goes to the selected role's session (made on first use, or
   * after it was archived), commands run on that session. Takes `agent.trigger` on the project.
   * A channel that does not exist yet is bound first.
   */
  async message(key: string, options: ChannelMessageOptions): Promise<MessageResult> {
    const { channel, role } = await this.admit(key, options);
    const current = await this.context.store.getChannelSession(key, role.name);
    const session = current ? await this.context.store.getSession(current) : null;
    return handleMessage(this.runtime, session?.state === 'active' ? session : null, {
      text: options.text,
      ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
      ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      // A session is made only for a message that a worker could then take.
      ensureSession: () => this.ensureSession(channel, role, { requireCredentials: true }),
    });
  }

  /**
   * The channel's active session for its selected role (after selecting `role`), made if it has
   * none: for edges that journal inputs themselves (A2A). Same checks as `message`.
   */
  async session(key: string, options: ChannelSessionOptions = {}): Promise<SessionRecord> {
    const { channel, role } = await this.admit(key, options);
    return this.ensureSession(channel, role, {
      requireCredentials: true,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.config ? { config: options.config } : {}),
    });
  }

  /** Binds a new channel, checks `agent.trigger`, selects a named role; returns the role messages go to. */
  private async admit(
    key: string,
    options: ChannelSessionOptions,
  ): Promise<{ channel: ChannelRecord; role: RoleRecord }> {
    checkKey(key);
    const actor = options.actor ?? ownerPrincipal;
    let channel = await this.context.store.getChannel(key);
    if (!channel) {
      ({ channel } = await this.bind({
        key,
        actor,
        ...(options.organization ? { organization: options.organization } : {}),
        ...(options.project ? { project: options.project } : {}),
        ...(options.role ? { role: options.role } : {}),
      }));
    }
    await this.access.require(
      actor,
      'agent.trigger',
      resources.project(channel.organization, channel.project),
    );
    if (options.role && options.role !== channel.role) {
      // A message that names a role its workers could not reach changes nothing, selection included.
      if (!this.context.offline) {
        const target = await this.roles.get(options.role, { organization: channel.organization });
        // Who may not run the role learns that first, not whether its provider is reachable.
        await this.access.require(actor, 'role.trigger', resources.role(channel.organization, target.name));
        await checkProvider({
          store: this.context.store,
          provider: providerOfRole(target),
          env: this.context.env,
        });
      }
      await this.selectRole(key, options.role, { actor });
      channel = await this.requireChannel(key);
    }
    return { channel, role: await this.effectiveRole(channel) };
  }

  /** The channel's active session for a role, made if it has none; racing callers get the same one. */
  private async ensureSession(
    channel: ChannelRecord,
    role: RoleRecord,
    launch: Pick<CreateSessionOptions, 'cwd' | 'config' | 'requireCredentials'>,
  ): Promise<SessionRecord> {
    const { store } = this.context;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const current = await store.getChannelSession(channel.key, role.name);
      const existing = current ? await store.getSession(current) : null;
      if (existing?.state === 'active') return existing;
      // The launch id names the session this one follows, so callers racing to replace the same
      // one make the same session.
      const { session } = await this.runtime
        .createSession({
          organization: channel.organization,
          role: role.name,
          launchId: `channel:${channel.key}:${role.name}:v${role.version}:${current ?? 'first'}`,
          title: channel.key,
          ...launch,
        })
        .catch((error: unknown) => {
          if (error instanceof ConflictError) return { session: null };
          throw error;
        });
      if (
        session &&
        (await store.setChannelSession({
          key: channel.key,
          role: role.name,
          sessionId: session.id,
          expect: current,
        }))
      )
        return session;
    }
    throw new ConflictError(`channel ${channel.key} changed while its session was being made; send again`);
  }

  /** The selected role, or the organization's default when it was deleted since. */
  private async effectiveRole(channel: ChannelRecord): Promise<RoleRecord> {
    const role = await this.context.store.getRole(channel.organization, channel.role);
    return role ?? this.roles.defaultRole({ organization: channel.organization });
  }

  private async requireChannel(key: string): Promise<ChannelRecord> {
    const channel = await this.context.store.getChannel(key);
    if (!channel) throw new NotFoundError(`channel ${key} not found`, { channel: key });
    return channel;
  }
}
