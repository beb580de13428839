import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentBackend, BackendName } from '../backends/agent-backend.js';
import { backendOf } from '../backends/session-spec.js';
import type { ClaudeConfig, PermissionMode } from '../config/claude-config.js';
import { claudeConfigFromEnv } from '../config/env-config.js';
import { checkProvider } from '../config/provider-env.js';
import { InvalidInputError, NotFoundError, StateError } from '../errors/index.js';
import { type DataPaths, ensureDataDir, resolveDataDir } from '../journal/data-dir.js';
import { type InputSource, type JournalRecord, journalEntry } from '../journal/journal-event.js';
import { journalInput } from '../journal/journal-input.js';
import { openStore, storeUrlVariable } from '../journal/open-store.js';
import { readJournal, toJournalRecord } from '../journal/read-journal.js';
import type { MonitorView } from '../monitor/monitor-ledger.js';
import { FileSkillStore } from '../skills/file-skill-store.js';
import {
  type ExecutionRecord,
  type ExecutionState,
  type InputRecord,
  type InteractionRecord,
  type Leadership,
  liveExecutionStates,
  type SessionRecord,
  type SessionState,
  type Store,
} from '../store/store.js';
import { Access, resources } from './access.js';
import { type Answer, validateAnswer } from './answers.js';
import { archiveSession } from './archive.js';
import { Budgets } from './budgets.js';
import { ChangeWaiter } from './change-waiter.js';
import { Channels } from './channels.js';
import { claudeExecutablePath } from './claude-executable.js';
import {
  busyError,
  busyState,
  type IfBusy,
  parseIfBusy,
  requireRollbackSupported,
  sessionIfBusy,
} from './double-texting.js';
import { prepareExecutionHere, tapJournal } from './execution-here.js';
import { FollowWatch } from './follow-watch.js';
import { currentGoal, type GoalView } from './goals.js';
import { Grants } from './grants.js';
import { isHibernated, lastEventOf } from './hibernation.js';
import { handleMessage, type MessageResult, type SessionStatus } from './messages.js';
import { type MonitorLimits, Monitors } from './monitors.js';
import { type PeerLimits, Peers } from './peers.js';
import { PermissionRules } from './permission-rules.js';
import type { PreparedRun } from './prepared-run.js';
import { Providers } from './providers.js';
import { Roles } from './roles.js';
import {
  type ActorOptions,
  defaultOrganization,
  ownerPrincipal,
  type RuntimeContext,
} from './runtime-context.js';
import { RuntimeSkills } from './runtime-skills.js';
import { Schedules } from './schedules.js';
import { Seeds } from './seeds.js';
import { type LaunchAddendum, launchOf } from './session-config.js';
import { type OverviewOptions, type SessionOverview, sessionOverview } from './session-overview.js';
import { parseMessage } from './slash-commands.js';
import { Supervisor } from './supervisor.js';
import { type WarmEntryInfo, WarmPool, type WarmTarget } from './warm-pool.js';
import { WebhookSender, type WebhookSendOptions } from './webhook-sender.js';
import { Webhooks } from './webhooks.js';

export interface RuntimeOptions {
  /** @default AGENTD_DATA_DIR, else ~/.local/state/agentd */
  dataDir?: string;
  /** A store to use instead of the data directory's SQLite file. */
  store?: Store;
  /**
   * The store to open instead of the data directory's SQLite file: `postgres://...` (several nodes
   * on one database) or `sqlite:PATH`. Workers open the same one. @default AGENTD_STORE_URL of `env`
   */
  storeUrl?: string;
  /** Environment for workers: credentials and CLAUDE_* settings. @default process.env */
  env?: Record<string, string | undefined>;
  /** Base config for new sessions. @default the `CLAUDE_*` variables of `env` over the defaults */
  config?: ClaudeConfig;
  /** How often `events(..., { follow: true })` looks for new events. @default 50 */
  pollMs?: number;
  /**
   * New sessions use the built-in demo model (provider `offline`) unless they say otherwise, as
   * `agentd serve --offline` does. @default false
   */
  offline?: boolean;
  /** Limits on messages between sessions. */
  peers?: PeerLimits;
  /**
   * Warm starts: worker processes, each with a `claude` booted, kept ready for new sessions of each
   * role (`agentd serve` keeps its config's `warmPool`). A number is the count for every role that
   * does not set its own `warmPool`. @default no pool (a CLI runtime keeps none)
   */
  warmPool?: number;
  /**
   * Spare workers: processes with agentd and the SDK loaded but no `claude`, kept ready for any
   * session no warm entry fits (a new one, a stopped or hibernated one resuming), so that its next
   * worker does not pay its own start (`agentd serve`: its config's `spareWorkers`, default 1).
   * @default 0 (a CLI runtime keeps none)
   */
  spareWorkers?: number;
  /** What schedules and webhook retries read the time from (tests move it). @default Date.now */
  clock?: () => number;
  /** Limits of monitors' output. */
  monitors?: MonitorLimits;
}

export interface CreateSessionOptions extends ActorOptions {
  /** The first message; the worker starts on it at once. */
  prompt?: string;
  /** The client's id for the first message. @default a new UUID */
  messageId?: string;
  /** Makes creation idempotent: the same launch id returns the same session. */
  launchId?: string;
  /** An existing directory; relative paths resolve against this process's cwd. @default process.cwd() */
  cwd?: string;
  /** Overrides the role's model for this session. */
  model?: string;
  /** The role the session runs under (its current version). @default the organization's default role */
  role?: string;
  /** @default 'default' */
  organization?: string;
  /**
   * Answer with the built-in demo model (provider `offline`): no credentials, no network. Each worker
   * of the session starts the demo model itself. @default the runtime's `offline`
   */
  offline?: boolean;
  permissionMode?: PermissionMode;
  /** What runs the session: `claude` or `codex`. @default the role's backend */
  backend?: BackendName;
  /**
   * Refuse to create the session (`credentials_missing`) unless a worker could start for it.
   * @default true when `prompt` is given
   */
  requireCredentials?: boolean;
  /** Settings over the runtime's base config. */
  config?: Partial<ClaudeConfig>;
  /** Take messages from other sessions (`runtime.peers.send`). @default false */
  acceptPeers?: boolean;
  /** Added after the role's surface: system prompt text and allowed tools (a seed run's). */
  addendum?: LaunchAddendum;
  title?: string;
  /** W3C trace context of the request; the first turn's span continues that trace. */
  traceparent?: string;
  /** What a message sent mid-turn does, unless it says otherwise (double texting). @default 'enqueue' */
  ifBusy?: IfBusy;
}

export interface SendOptions extends ActorOptions {
  text: string;
  /** The client's message id; the same id and text is the same input. @default a new UUID */
  messageId?: string;
  /** W3C trace context of the request that sent it; the worker's turn span continues that trace. */
  traceparent?: string;
  /**
   * What to do if the session is mid-turn: `enqueue` (after the turn), `reject` (`session_busy`,
   * nothing journaled), `interrupt` (the turn is interrupted, then this input delivered) or
   * `rollback` (as interrupt, and the interrupted turn is taken back: the agent resumes from before
   * it). @default the session's `ifBusy`, else 'enqueue'
   */
  ifBusy?: IfBusy;
}

/** An input as the runtime journals it: text for the agent, or the one command the agent gets (`/compact`). */
export interface DispatchOptions extends Omit<SendOptions, 'actor'> {
  /** True for `/compact`: sent to the agent as its command, not as text. */
  command: boolean;
  /** The session a peer message came from, or the monitor whose output it is. */
  source?: InputSource;
}

export interface RunHereOptions extends SendOptions {
  /** What runs the turns, in this process. */
  backend: AgentBackend;
  /** Sees each journal record this process writes for the session, as it is written. */
  onRecord?: (record: JournalRecord) => void;
  /** What `prepareRun` started before the session was created: taken over, or discarded. */
  prepared?: PreparedRun;
}

export interface ExecutionHere {
  input: InputRecord;
  execution: ExecutionRecord;
  /** The worker's exit code, once it has stopped. */
  done: Promise<number>;
}

export interface EventsOptions {
  /** Return events after this cursor. @default 0 */
  after?: number;
  /** Keep waiting for new events. @default false */
  follow?: boolean;
  /** Stop following when this signal aborts. */
  signal?: AbortSignal;
}

export interface SessionDetails {
  session: SessionRecord;
  executions: ExecutionRecord[];
  inputs: InputRecord[];
  live: ExecutionRecord | null;
  lastCursor: number;
  /**
   * No worker runs since the last one left after its idle timeout; the next input wakes the
   * session (a worker started, the native session resumed).
   */
  hibernated: boolean;
  /** Claude's own goal (`/goal`), as its journaled lifecycle tells it; null when none is set. */
  goal: GoalView | null;
  monitors: MonitorView[];
}

export interface GoalOptions extends ActorOptions {
  /** The condition claude works towards; `clear` ends the goal. */
  objective: string;
  /** The client's message id; the same id and objective is the same input. @default a new UUID */
  messageId?: string;
}

/** The working directory must exist before anything is recorded: a worker could not start in it. */
function requireDirectory(cwd: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Missing or unreadable: the same answer.
  }
  if (!isDirectory) throw new InvalidInputError(`cwd ${cwd} is not an existing directory`, { cwd });
}

/** How often the followers' workers are checked, all at once (FollowWatch). */
const followReconcileMs = 2000;
/**
 * A follower's safety poll while every process's writes wake it (SQLite's wake file, PostgreSQL's
 * LISTEN): only for a lost notification; a dead worker is found by the FollowWatch meanwhile.
 */
const followSafetyPollMs = 10_000;

/** The leadership of a node that is alone on its store. */
const soleLeadership: Leadership = { leader: true, ready: async () => {}, close: async () => {} };

/**
 * The library API: everything the CLI, HTTP server, A2A and dashboard do goes through here.
 */
export class Runtime {
  readonly store: Store;
  readonly paths: DataPaths;
  /** Provider profiles: how to reach a model and where its secret comes from. */
  readonly providers: Providers;
  /** Organizations' versioned roles. */
  readonly roles: Roles;
  /** Content-addressed skills, selected by roles. */
  readonly skills: RuntimeSkills;
  /** External conversation keys, each selecting a role. */
  readonly channels: Channels;
  /** Principals, their tokens and grants. */
  readonly grants: Grants;
  /** Spending limits and spend. */
  readonly budgets: Budgets;
  /** Messages between sessions. */
  readonly peers: Peers;
  /** Detached commands whose output reaches their session between turns. */
  readonly monitors: Monitors;
  /** Goals with acceptance criteria, verified by agentd. */
  readonly seeds: Seeds;
  /** Cron schedules that start sessions or send to channels. */
  readonly schedules: Schedules;
  /** Subscriptions to events, delivered signed and retried from the store. */
  readonly webhooks: Webhooks;
  private readonly clock: () => number;
  /** Scoped decisions on tool uses (approval scopes): listed, added, revoked. */
  readonly rules: PermissionRules;
  private readonly access: Access;
  private readonly supervisor: Supervisor;
  private readonly followWatch: FollowWatch;
  private readonly baseConfig: ClaudeConfig;
  private readonly pollMs: number;
  private readonly env: Record<string, string | undefined>;
  private readonly offline: boolean;
  /** Workers started ahead of their sessions; absent when this runtime keeps none. */
  private readonly pool: WarmPool | undefined;

  constructor(options: {
    store: Store;
    paths: DataPaths;
    env: Record<string, string | undefined>;
    config: ClaudeConfig;
    pollMs: number;
    offline?: boolean;
    peers?: PeerLimits;
    warmPool?: number;
    spareWorkers?: number;
    clock?: () => number;
    monitors?: MonitorLimits;
  }) {
    this.store = options.store;
    this.paths = options.paths;
    this.baseConfig = options.config;
    this.pollMs = options.pollMs;
    this.env = options.env;
    this.offline = options.offline ?? false;
    this.supervisor = new Supervisor({ store: options.store, paths: options.paths, env: options.env });
    this.followWatch = new FollowWatch({
      store: options.store,
      supervisor: this.supervisor,
      intervalMs: followReconcileMs,
    });
    const context: RuntimeContext = {
      store: options.store,
      paths: options.paths,
      skills: new FileSkillStore({ directory: options.paths.skills }),
      supervisor: this.supervisor,
      env: options.env,
      baseConfig: options.config,
      offline: this.offline,
    };
    this.access = new Access(options.store);
    this.providers = new Providers(context, this.access);
    this.roles = new Roles(context, this.access, this.providers);
    this.skills = new RuntimeSkills(context, this.access);
    this.channels = new Channels(this, context, this.access, this.roles);
    this.grants = new Grants(context, this.access);
    this.budgets = new Budgets(context, this.access, () => this.resumeWaiting());
    this.peers = new Peers(this, context, this.access, options.peers);
    this.monitors = new Monitors(this, context, this.access, options.monitors);
    this.seeds = new Seeds(this);
    this.rules = new PermissionRules(context, this.access);
    this.clock = options.clock ?? Date.now;
    this.schedules = new Schedules(this, context, this.access, this.roles, this.clock);
    this.webhooks = new Webhooks(context, this.access, this.clock);
    const { warmPool, spareWorkers = 0 } = options;
    if (warmPool !== undefined || spareWorkers > 0) {
      this.pool = new WarmPool({
        spawn: (name) => this.supervisor.spawnWarmEntry(name),
        targets: async () => [
          ...(warmPool !== undefined ? await this.warmTargets(warmPool) : []),
          ...(spareWorkers > 0 ? [{ launch: null, size: spareWorkers }] : []),
        ],
        log: (line) => process.stderr.write(`${line}\n`),
      });
    }
  }

  /**
   * What the warm pool keeps ready: for each role of each organization, its count (the role's own
   * `warmPool`, else `fallback`) of entries for the launch a new session of that role gets when
   * it names nothing else (the runtime's cwd and base config). A role whose provider this runtime
   * cannot reach gets none.
   */
  private async warmTargets(fallback: number): Promise<WarmTarget[]> {
    const targets: WarmTarget[] = [];
    for (const organization of await this.store.listOrganizations()) {
      for (const role of await this.store.listRoles(organization.id)) {
        const size = role.warmPool ?? fallback;
        // A warm entry boots `claude`; a Codex role's sessions start cold.
        if (size <= 0 || role.backend !== 'claude') continue;
        const launch = launchOf(this.baseConfig, { role, offline: this.offline });
        const reachable = await this.requireProvider(launch.provider).then(
          () => true,
          () => false,
        );
        if (!reachable) continue;
        targets.push({
          size,
          launch: {
            provider: launch.provider,
            organization: organization.id,
            role: role.name,
            cwd: launch.cwd,
            config: launch.stored,
          },
        });
      }
    }
    return targets;
  }

  /** Starts the warm pool's entries (a runtime with one); resolves once they are spawned. */
  async warmUp(): Promise<void> {
    await this.pool?.refill();
  }

  /** The warm pool's entries and spare workers not taken yet (none without a pool). */
  warmEntries(): WarmEntryInfo[] {
    return this.pool?.list() ?? [];
  }

  /**
   * Creates a session under a role (the organization's default unless named) and, with a prompt,
   * starts its worker. Idempotent on `launchId`. Naming a role takes `role.trigger` on it.
   */
  async createSession(
    options: CreateSessionOptions = {},
  ): Promise<{ session: SessionRecord; input: InputRecord | null; created: boolean }> {
    if (options.prompt !== undefined && options.prompt.trim() === '')
      throw new InvalidInputError('prompt must not be empty');
    const organization = options.organization ?? defaultOrganization;
    const role = options.role
      ? await this.roles.get(options.role, { organization })
      : await this.roles.defaultRole({ organization });
    if (options.role)
      await this.access.require(
        options.actor ?? ownerPrincipal,
        'role.trigger',
        resources.role(organization, role.name),
      );
    const { config, cwd, stored, provider } = launchOf(this.baseConfig, {
      ...options,
      role,
      offline: options.offline ?? this.offline,
    });
    requireDirectory(cwd);
    // A session whose first turn could not start is not created at all.
    if (options.requireCredentials ?? options.prompt !== undefined) await this.requireProvider(provider);
    // The launch configuration includes the first prompt, so a launch id fixes both.
    if (options.prompt !== undefined) stored.initialPrompt = options.prompt;
    if (options.acceptPeers) stored.acceptPeers = true;
    const ifBusy = parseIfBusy(options.ifBusy);
    requireRollbackSupported(backendOf(stored), ifBusy);
    if (ifBusy && ifBusy !== 'enqueue') stored.ifBusy = ifBusy;
    const { session, created } = await this.store.createSession({
      id: randomUUID(),
      provider,
      organization,
      role: role.name,
      roleVersion: role.version,
      model: config.model ?? null,
      cwd,
      config: stored,
      launchId: options.launchId ?? null,
      title: options.title ?? null,
      now: Date.now(),
    });
    let input: InputRecord | null = null;
    if (options.prompt !== undefined) {
      const messageId = options.messageId ?? (options.launchId ? `launch:${options.launchId}` : randomUUID());
      input = await this.send(session.id, {
        text: options.prompt,
        messageId,
        ...(options.traceparent ? { traceparent: options.traceparent } : {}),
      });
    }
    return { session, input, created };
  }

  /**
   * A message to a session under the closed command protocol: text becomes an input, a known
   * command runs (`/compact` reaches the agent exactly), an unknown one is refused with
   * `unknown_command` and changes nothing.
   */
  async message(sessionId: string, options: SendOptions): Promise<MessageResult> {
    const session = await this.requireSession(sessionId);
    return handleMessage(this, session, options);
  }

  /**
   * Journals a message and makes sure a worker will deliver it. The same message id and text
   * returns the existing input; the same id with other text is a `conflict`. Text starting with
   * `/` follows the command protocol: `/compact` is sent as the command, `//text` as `/text`, any
   * other command is refused here (use `message`).
   */
  async send(sessionId: string, options: SendOptions): Promise<InputRecord> {
    if (typeof options.text !== 'string' || options.text.trim() === '')
      throw new InvalidInputError('text must not be empty');
    const parsed = parseMessage(options.text);
    if (parsed.kind === 'command' && parsed.name !== 'compact' && parsed.name !== 'goal')
      throw new InvalidInputError(`/${parsed.name} is a command, not an input: send it as a message`, {
        command: `/${parsed.name}`,
      });
    return this.journalAndDispatch(sessionId, {
      ...options,
      text:
        parsed.kind === 'text'
          ? parsed.text
          : parsed.argument === undefined
            ? `/${parsed.name}`
            : `/${parsed.name} ${parsed.argument}`,
      command: parsed.kind === 'command',
    });
  }

  /**
   * Journals an input that has passed the command protocol and makes sure a worker delivers it.
   * Refused before anything is journaled when the session is archived, over its budget, or no
   * worker could reach its provider.
   */
  async journalAndDispatch(sessionId: string, options: DispatchOptions): Promise<InputRecord> {
    if (typeof options.text !== 'string' || options.text.trim() === '')
      throw new InvalidInputError('text must not be empty');
    const session = await this.requireSession(sessionId);
    if (session.state === 'archived') throw new StateError(`session ${sessionId} is archived`);
    const existing = options.messageId ? await this.store.getInput(sessionId, options.messageId) : null;
    // A retry of an input already journaled is answered as before, budget or not.
    if (!existing) await this.budgets.require(session);
    // Refused before it is journaled when no worker could deliver it; a live worker has its own env.
    const live = await this.liveExecution(sessionId);
    if (!live) await this.requireProvider(session.provider);
    const ifBusy = parseIfBusy(options.ifBusy) ?? sessionIfBusy(session);
    requireRollbackSupported(backendOf(session.config), ifBusy);
    const busy = existing || ifBusy === 'enqueue' ? null : await busyState(this.store, sessionId, live);
    if (busy && ifBusy === 'reject') throw busyError(sessionId, busy);
    const cuts = busy?.turn && (ifBusy === 'interrupt' || ifBusy === 'rollback') ? busy.turn : null;
    // A fixed message id: the input a worker may have journaled before its reply was lost is the same.
    const messageId = options.messageId ?? randomUUID();
    const handed =
      live && !existing && !cuts
        ? await this.supervisor.handOff(live, {
            sessionId,
            executionId: live.id,
            messageId,
            text: options.text,
            ...(options.command ? { command: true } : {}),
            ...(options.traceparent ? { traceparent: options.traceparent } : {}),
            ...(options.source ? { source: options.source } : {}),
          })
        : null;
    const input =
      handed ??
      (await journalInput(this.store, sessionId, {
        ...options,
        messageId,
        ...(cuts ? { ifBusy } : { ifBusy: 'enqueue' }),
      }));
    if (cuts && input.state === 'accepted') {
      // Only that turn is interrupted: if it ended meanwhile, the worker ignores the request.
      await this.store.appendEvents(
        sessionId,
        [
          journalEntry({
            type: 'control.interrupt',
            reason: `${ifBusy}: a new message arrived mid-turn`,
            inputId: cuts.id,
            byInputId: input.id,
            ...(ifBusy === 'rollback' ? { rollback: true } : {}),
          }),
        ],
        { now: Date.now() },
      );
    }
    if (input.state === 'accepted') {
      // The worker seen before the commit is woken at once; whether it is still there to take
      // the input is read after the commit, as ever (a worker going idle-stopping reads once more).
      if (live) this.supervisor.nudge(live);
      await this.ensureWorker(sessionId, live);
    }
    // A handed input is as its worker committed it; one journaled here is read again (a worker may
    // have taken it since).
    return handed ?? (await this.store.getInput(sessionId, input.messageId)) ?? input;
  }

  /**
   * Refuses (`session_busy`) a message that says `reject` (or whose session does by default) while
   * the session is mid-turn, for edges that must refuse before they record anything (A2A).
   */
  async checkIfBusy(sessionId: string, ifBusy?: IfBusy): Promise<void> {
    const session = await this.requireSession(sessionId);
    if ((parseIfBusy(ifBusy) ?? sessionIfBusy(session)) !== 'reject') return;
    const busy = await busyState(this.store, sessionId, await this.liveExecution(sessionId));
    if (busy) throw busyError(sessionId, busy);
  }

  /**
   * Sends claude's own `/goal OBJECTIVE` (or `/goal clear`) through the command protocol: claude
   * keeps the goal and works until its Stop hook finds the condition met; the journal records what
   * it did (`goal.*`) and `getSession` shows the current goal.
   */
  async goal(sessionId: string, options: GoalOptions): Promise<InputRecord> {
    if (typeof options.objective !== 'string' || options.objective.trim() === '')
      throw new InvalidInputError('objective must not be empty');
    return this.send(sessionId, {
      text: `/goal ${options.objective.trim()}`,
      ...(options.messageId ? { messageId: options.messageId } : {}),
    });
  }

  /** What `/status` shows: the worker, waiting inputs, pending approvals, spend and any limit reached. */
  async status(sessionId: string): Promise<SessionStatus> {
    const session = await this.requireSession(sessionId);
    return {
      session,
      live: await this.liveExecution(sessionId),
      waitingInputs: (await this.store.listInputs(sessionId, { states: ['accepted'] })).length,
      pendingInteractions: (await this.store.listInteractions({ sessionId, state: 'pending' })).length,
      costUsd: session.costUsd,
      budget: await this.budgets.reached(session),
    };
  }

  /**
   * Runs one execution of the session in this process instead of a detached worker, starting with
   * `text` (`agentd run`: nothing to spawn, and `onRecord` sees each journal record this process
   * writes as it is written). It is journaled and leased like any execution. The session must
   * have no live worker. `done` resolves with the worker's exit code once it stops (`stop()`).
   */
  async runHere(sessionId: string, options: RunHereOptions): Promise<ExecutionHere> {
    const text = typeof options.text === 'string' ? options.text : '';
    const session = await this.sessionToRunHere(sessionId, text).catch(async (error: unknown) => {
      await options.prepared?.discard();
      throw error;
    });
    const store = options.onRecord ? tapJournal(this.store, options.onRecord) : this.store;
    const prepared = await prepareExecutionHere({
      store,
      session,
      backend: options.backend,
      env: this.env,
      ...(options.prepared ? { prepared: options.prepared } : {}),
    });
    try {
      const parsed = parseMessage(text);
      const input = await journalInput(store, sessionId, {
        ...options,
        text: parsed.kind === 'text' ? parsed.text : text,
        command: false,
      });
      const execution = await this.store.createExecution({ id: randomUUID(), sessionId, now: Date.now() });
      const run = prepared.run({
        executionId: execution.id,
        logFile: join(this.paths.logs, `${execution.id}.log`),
      });
      return { input, execution, done: run.done };
    } catch (error) {
      await prepared.discard();
      throw error;
    }
  }

  /** The session, if an execution may run on it in this process now. */
  private async sessionToRunHere(sessionId: string, text: string): Promise<SessionRecord> {
    if (typeof text !== 'string' || text.trim() === '') throw new InvalidInputError('text must not be empty');
    const parsed = parseMessage(text);
    if (parsed.kind === 'command')
      throw new InvalidInputError(
        `/${parsed.name} is a command: run takes a prompt (start with // to send text that begins with /)`,
      );
    const session = await this.requireSession(sessionId);
    if (session.state === 'archived') throw new StateError(`session ${sessionId} is archived`);
    await this.budgets.require(session);
    await this.requireProvider(session.provider);
    const live = await this.liveExecution(sessionId);
    if (live)
      throw new StateError(
        `session ${sessionId} already has a live worker (${live.id}); send it a message with agentd send`,
        { executionId: live.id },
      );
    return session;
  }

  /** The session's events after a cursor; with `follow`, waits for more until aborted. */
  async *events(sessionId: string, options: EventsOptions = {}): AsyncGenerator<JournalRecord> {
    await this.requireSession(sessionId);
    let after = options.after ?? 0;
    // Woken by the store's change feed (LISTEN/NOTIFY on PostgreSQL), with a poll as the fallback.
    const waiter = options.follow
      ? new ChangeWaiter({
          store: this.store,
          kind: 'events',
          sessionId,
          pollMs: this.pollMs,
          fallbackMs: followSafetyPollMs,
        })
      : undefined;
    // A worker that died journals nothing more: the watch notices it and journals `execution.failed`,
    // so the stream shows it instead of waiting for an event that will never come.
    const unfollow = options.follow ? this.followWatch.follow(sessionId) : undefined;
    try {
      for (;;) {
        const page = await readJournal(this.store, sessionId, { after, limit: 500 });
        for (const event of page) {
          after = event.cursor;
          yield event;
        }
        if (page.length === 500) continue;
        if (!options.follow || options.signal?.aborted) return;
        await waiter?.wait(options.signal);
        if (options.signal?.aborted) return;
      }
    } finally {
      unfollow?.();
      waiter?.close();
    }
  }

  /**
   * Calls `listener` whenever the session's journal may have grown (the store's change feed: any
   * node's writes on PostgreSQL, any process's on this host on SQLite). Returns the function that
   * stops it.
   */
  watchEvents(sessionId: string, listener: () => void): () => void {
    return (
      this.store.changes?.watch('events', (changed) => {
        if (changed === null || changed === sessionId) listener();
      }) ?? (() => {})
    );
  }

  /**
   * True while `watchEvents` sees every process's and node's writes (PostgreSQL's LISTEN is up,
   * SQLite's wake file is watched): a follower may then poll only as a safety net.
   */
  get changesWake(): boolean {
    return this.store.changes?.crossProcess ?? false;
  }

  async interactions(
    options: { sessionId?: string; state?: InteractionRecord['state'] } = {},
  ): Promise<InteractionRecord[]> {
    return this.store.listInteractions(options);
  }

  /**
   * Answers a pending interaction once; a second answer is a `conflict`. Whoever answers needs
   * `role.trigger` on the session's role (who may run the role may decide its tool uses; `admin`
   * for a session without a role), else `forbidden` and nothing changes
   * (docs/decisions/0100-who-may-answer-an-interaction.md).
   */
  async answer(
    interactionId: string,
    answer: Answer,
    options: ActorOptions = {},
  ): Promise<InteractionRecord> {
    const interaction = await this.store.getInteraction(interactionId);
    if (!interaction) throw new NotFoundError(`interaction ${interactionId} not found`);
    await this.requireAnswerer(options.actor ?? ownerPrincipal, interaction);
    const validated = validateAnswer(interaction, answer);
    const rule = await this.rules.planFromAnswer(interaction, validated, options.actor ?? ownerPrincipal);
    const stored = rule ? { ...validated, rule: rule.rule, ruleId: rule.id } : validated;
    const answered = await this.store.answerInteraction(interactionId, stored, Date.now());
    // After the answer: an answer that conflicts makes no rule.
    if (rule) await this.rules.add(rule);
    await this.store.appendEvents(
      answered.sessionId,
      [
        journalEntry({
          type: 'interaction.answered',
          interactionId,
          answer: stored,
          ...(options.actor ? { answeredBy: options.actor } : {}),
        }),
      ],
      { now: Date.now() },
    );
    const live = await this.liveExecution(answered.sessionId);
    if (live) this.supervisor.nudge(live);
    return answered;
  }

  /** Who answers needs `role.trigger` on the session's role; `admin` for a session without one. */
  private async requireAnswerer(actor: string, interaction: InteractionRecord): Promise<void> {
    const session = await this.requireSession(interaction.sessionId);
    if (session.organization && session.role)
      await this.access.require(actor, 'role.trigger', resources.role(session.organization, session.role));
    else await this.access.require(actor, 'admin', resources.all);
  }

  /**
   * Asks the live worker to stop, and the session's monitors that are not persistent. Returns the
   * execution, or null when none was live.
   */
  async stop(sessionId: string): Promise<ExecutionRecord | null> {
    await this.requireSession(sessionId);
    await this.monitors.stopWithSession(sessionId);
    const live = await this.liveExecution(sessionId);
    if (!live) return null;
    const stopping = await this.store.updateExecution(live.id, { state: 'stopping', now: Date.now() });
    // Woken, it sees the request now rather than at its next poll.
    this.supervisor.nudge(live);
    return stopping;
  }

  /** Interrupts the current turn of the live worker (the session stays open). */
  async interrupt(sessionId: string, reason = 'interrupted by the user'): Promise<boolean> {
    await this.requireSession(sessionId);
    const live = await this.liveExecution(sessionId);
    if (!live) return false;
    await this.store.appendEvents(sessionId, [journalEntry({ type: 'control.interrupt', reason })], {
      now: Date.now(),
    });
    this.supervisor.nudge(live);
    return true;
  }

  /** Starts a worker on a session that has none (after a stop or a failure). */
  async resume(sessionId: string): Promise<ExecutionRecord> {
    const session = await this.requireSession(sessionId);
    if (session.state === 'archived') throw new StateError(`session ${sessionId} is archived`);
    await this.requireProvider(session.provider);
    // A worker that let its lease lapse (stopped, hung) is taken over: it is fenced off from here on.
    await this.supervisor.reconcile(sessionId, { takeOverLapsed: true });
    const live = await this.liveExecution(sessionId);
    if (live)
      throw new StateError(`session ${sessionId} already has a live worker (${live.id})`, {
        executionId: live.id,
      });
    return this.startWorker(sessionId);
  }

  /** The interactive `claude --resume` command; only once no worker owns the session. */
  async attach(sessionId: string): Promise<{ command: string; args: string[]; cwd: string }> {
    const session = await this.requireSession(sessionId);
    const live = await this.liveExecution(sessionId);
    if (live)
      throw new StateError(
        `session ${sessionId} has a live worker; stop it first (agentd stop ${sessionId})`,
      );
    if (!session.nativeSessionId) throw new StateError(`session ${sessionId} has no Claude session yet`);
    return { command: claudeExecutablePath(), args: ['--resume', session.nativeSessionId], cwd: session.cwd };
  }

  /** Stops the session's worker and archives it: readable, never continued. */
  async archive(sessionId: string): Promise<SessionRecord> {
    const session = await this.requireSession(sessionId);
    await this.stop(sessionId);
    return archiveSession(this.store, session, 'archived');
  }

  async getSession(sessionId: string): Promise<SessionDetails> {
    const session = await this.requireSession(sessionId);
    await this.supervisor.reconcile(sessionId);
    const executions = await this.store.listExecutions(sessionId);
    const live = executions.find((execution) => liveExecutionStates.includes(execution.state)) ?? null;
    const lastCursor = await this.store.lastCursor(sessionId);
    const journal: JournalRecord[] = [];
    for await (const record of this.events(sessionId)) journal.push(record);
    return {
      session,
      executions,
      inputs: await this.store.listInputs(sessionId),
      live,
      lastCursor,
      hibernated: isHibernated(session, live, await lastEventOf(this.store, sessionId, lastCursor)),
      goal: currentGoal(journal),
      monitors: await this.monitors.list(sessionId),
    };
  }

  async listSessions(
    options: { state?: SessionState; limit?: number; organization?: string; role?: string } = {},
  ): Promise<SessionRecord[]> {
    return this.store.listSessions(options);
  }

  /** Sessions with what each needs now (pending interactions, a busy or idle worker, how it ended): an inbox. */
  async overview(options: OverviewOptions = {}): Promise<SessionOverview[]> {
    await this.supervisor.reconcile();
    return sessionOverview(this.store, options);
  }

  async listExecutions(sessionId: string): Promise<ExecutionRecord[]> {
    await this.requireSession(sessionId);
    return this.store.listExecutions(sessionId);
  }

  async listInputs(sessionId: string): Promise<InputRecord[]> {
    await this.requireSession(sessionId);
    return this.store.listInputs(sessionId);
  }

  /** The input a client's message id names in the session, or null when the id was not used there. */
  async getInput(sessionId: string, messageId: string): Promise<InputRecord | null> {
    return this.store.getInput(sessionId, messageId);
  }

  /** The highest cursor of the session's journal, 0 when it has none. */
  async lastCursor(sessionId: string): Promise<number> {
    await this.requireSession(sessionId);
    return this.store.lastCursor(sessionId);
  }

  /**
   * The journals of all sessions past a cursor each (sessions not in `after`: from their start),
   * typed, by session then cursor, at most `limit`: one store query however many sessions there are.
   */
  async journalAcross(after: ReadonlyMap<string, number>, limit = 1000): Promise<JournalRecord[]> {
    return (await this.store.readEventsAcross({ after, limit })).map(toJournalRecord);
  }

  /** Every session's highest cursor, in one store query. */
  async lastCursors(): Promise<Map<string, number>> {
    return this.store.lastCursors();
  }

  /** Executions in any of the given states, across sessions (as last recorded: `reconcile()` first to drop dead ones). */
  async executionsInState(states: readonly ExecutionState[]): Promise<ExecutionRecord[]> {
    return this.store.listExecutionsByState([...states]);
  }

  /**
   * Leadership of a cluster-wide duty among the nodes on this store. A store only one node uses
   * (SQLite) has no leadership: this node always leads.
   */
  leadership(duty: string): Leadership {
    return this.store.leadership?.(duty) ?? soleLeadership;
  }

  /**
   * Starts sending due webhook deliveries from the store (every node may run one: each delivery is
   * claimed before it is sent). Close it before the runtime.
   */
  startWebhookSender(options: WebhookSendOptions & { log?: (line: string) => void } = {}): WebhookSender {
    const { log, ...send } = options;
    return new WebhookSender({
      store: this.store,
      env: this.env,
      clock: this.clock,
      send,
      ...(log ? { log } : {}),
    }).start();
  }

  /** Which store this runtime uses (`sqlite`, `postgres`). */
  get storeKind(): string {
    return this.store.kind;
  }

  /** A cheap round-trip to the store; throws when it is unreachable. */
  async ping(): Promise<void> {
    await this.store.ping();
  }

  /** Notices workers that died while nobody watched; run at start and before decisions. */
  async reconcile(): Promise<ExecutionRecord[]> {
    return this.supervisor.reconcile();
  }

  /** The live execution of a session, after marking dead ones. */
  async liveExecution(sessionId: string): Promise<ExecutionRecord | null> {
    const live = (await this.store.listExecutions(sessionId)).filter((execution) =>
      liveExecutionStates.includes(execution.state),
    );
    // Every live one's process is there (the usual case, on every send): nothing to reconcile, and
    // the executions need not be read a second time.
    if (live.every((execution) => this.supervisor.isAlive(execution))) return live[0] ?? null;
    await this.supervisor.reconcile(sessionId);
    const executions = await this.store.listExecutions(sessionId);
    return executions.find((execution) => liveExecutionStates.includes(execution.state)) ?? null;
  }

  async close(): Promise<void> {
    this.followWatch.close();
    this.supervisor.close();
    await this.pool?.close();
    await this.store.close();
  }

  /**
   * A worker that is stopping re-reads the journal after it marks itself so; one that already left
   * cannot take the input, so wait for it to go and start another.
   */
  private async ensureWorker(sessionId: string, nudged: ExecutionRecord | null = null): Promise<void> {
    let live = await this.liveExecution(sessionId);
    // Woken already, and as it was then: no second signal (it would cost the worker another look).
    if (
      live &&
      nudged &&
      live.id === nudged.id &&
      live.state === nudged.state &&
      (live.state === 'running' || live.state === 'idle')
    )
      return;
    const deadline = Date.now() + 15_000;
    while (live?.state === 'stopping' && Date.now() < deadline) {
      await sleep(this.pollMs);
      live = await this.liveExecution(sessionId);
    }
    if (live) {
      this.supervisor.nudge(live);
      return;
    }
    await this.startWorker(sessionId);
  }

  private async startWorker(sessionId: string): Promise<ExecutionRecord> {
    const session = await this.requireSession(sessionId);
    await this.requireProvider(session.provider);
    const execution = await this.store.createExecution({ id: randomUUID(), sessionId, now: Date.now() });
    const warm = await this.startWarm(session, execution);
    if (warm) return warm;
    const identity = this.supervisor.spawnWorker(execution);
    return this.store.updateExecution(execution.id, { ...identity, now: Date.now() });
  }

  /**
   * Gives the execution to a warm entry whose launch is exactly the session's, else to a spare, if
   * there is one. Its identity is recorded first: the lease goes only to the process the execution
   * names. Null when no entry took it (a cold worker starts).
   */
  private async startWarm(
    session: SessionRecord,
    execution: ExecutionRecord,
  ): Promise<ExecutionRecord | null> {
    if (!this.pool) return null;
    const entry = this.pool.take(session);
    if (!entry) return null;
    const identity = { pid: entry.pid, processStartTime: entry.processStartTime };
    const recorded = await this.store.updateExecution(execution.id, { ...identity, now: Date.now() });
    if (await entry.assign({ sessionId: session.id, executionId: execution.id, session })) return recorded;
    return null;
  }

  /**
   * Every path that starts a worker passes here: the workers of this runtime get its env, which must
   * reach the session's provider. Throws `CredentialsMissingError`.
   */
  private async requireProvider(provider: string): Promise<void> {
    await checkProvider({ store: this.store, provider, env: this.env });
  }

  /** After a limit was raised: workers of sessions whose inputs wait look again, or start. */
  private async resumeWaiting(): Promise<void> {
    for (const session of await this.store.listSessions({ state: 'active', limit: 1000 })) {
      if ((await this.store.listInputs(session.id, { states: ['accepted'] })).length === 0) continue;
      if (await this.budgets.reached(session)) continue;
      await this.ensureWorker(session.id).catch(() => {
        // A session that cannot start now (credentials) keeps its inputs; a later send retries.
      });
    }
  }

  private async requireSession(sessionId: string): Promise<SessionRecord> {
    const session = await this.store.getSession(sessionId);
    if (!session) throw new NotFoundError(`session ${sessionId} not found`);
    return session;
  }
}

/** Opens (or creates) a data directory and returns its runtime. */
export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const baseEnv = options.env ?? process.env;
  // Workers inherit the runtime's environment: the store URL travels with it, so they open the same store.
  const env = options.storeUrl ? { ...baseEnv, [storeUrlVariable]: options.storeUrl } : baseEnv;
  const paths = ensureDataDir(resolveDataDir(options.dataDir, env));
  const store = options.store ?? (await openStore(paths, env));
  const runtime = new Runtime({
    store,
    paths,
    env,
    config: options.config ?? claudeConfigFromEnv(env),
    pollMs: options.pollMs ?? 50,
    ...(options.offline ? { offline: true } : {}),
    ...(options.peers ? { peers: options.peers } : {}),
    ...(options.warmPool !== undefined ? { warmPool: options.warmPool } : {}),
    ...(options.spareWorkers !== undefined ? { spareWorkers: options.spareWorkers } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.monitors ? { monitors: options.monitors } : {}),
  });
  await runtime.roles.ensureDefaults();
  await runtime.reconcile();
  await runtime.warmUp();
  return runtime;
}
