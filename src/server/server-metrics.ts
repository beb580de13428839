import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ModelUsage, TokenUsage } from '../backends/agent-event.js';
import type { JournalData, JournalRecord } from '../journal/journal-event.js';
import type { Runtime } from '../runtime/runtime.js';
import { type Leadership, liveExecutionStates } from '../store/store.js';

export interface ServerMetricsOptions {
  runtime: Runtime;
  /** Also export Node's process metrics (CPU, memory, event loop). @default true */
  processMetrics?: boolean;
  /** The cluster-wide duties this node may hold, by name, shown as `agentd_duty_leader`. @default none */
  duties?: Record<string, Leadership>;
}

/** Events read per cross-session query. */
const journalPage = 1000;

const tokenDirections: Array<[keyof TokenUsage, string]> = [
  ['inputTokens', 'input'],
  ['outputTokens', 'output'],
  ['cacheReadInputTokens', 'cache_read'],
  ['cacheCreationInputTokens', 'cache_creation'],
];

/**
 * Prometheus metrics of one server, in a registry of its own. Workers are other processes, so the
 * counters come from the journal: before each scrape the server reads, in one cross-session query
 * (paged), the events of every session after the last cursor it counted. Events journaled before the server started are not counted
 * (a counter starts at zero with its process, as Prometheus expects). Gauges are read from the
 * store at scrape time.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly runtime: Runtime;
  /** The last cursor counted, per session. A session not in here started after the baseline. */
  private readonly cursors = new Map<string, number>();
  private pending: Promise<void> = Promise.resolve();

  private readonly queries: Counter<'status' | 'model'>;
  private readonly queryDuration: Histogram<'model'>;
  private readonly tokens: Counter<'direction' | 'model'>;
  private readonly cost: Counter<'model'>;
  private readonly errors: Counter<'error_type' | 'is_transient'>;
  private readonly retries: Counter<'error_type'>;
  private readonly journalEvents: Counter<'type'>;
  private readonly pendingApprovals: Gauge;
  private readonly sessionsActive: Gauge;
  private readonly queriesRunning: Gauge;
  private readonly liveWorkers: Gauge;
  private readonly dutyLeader: Gauge<'duty'>;
  private readonly duties: Record<string, Leadership>;

  constructor(options: ServerMetricsOptions) {
    this.runtime = options.runtime;
    const registers = [this.registry];
    this.queries = new Counter({
      name: 'agentd_queries_total',
      help: 'Completed agent turns, by status (success or error) and model',
      labelNames: ['status', 'model'],
      registers,
    });
    this.queryDuration = new Histogram({
      name: 'agentd_query_duration_seconds',
      help: 'Wall-clock duration of completed agent turns',
      labelNames: ['model'],
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.tokens = new Counter({
      name: 'agentd_tokens_total',
      help: 'Tokens used by completed turns, by direction (input, output, cache_read, cache_creation) and model',
      labelNames: ['direction', 'model'],
      registers,
    });
    this.cost = new Counter({
      name: 'agentd_cost_usd_total',
      help: 'Cost in USD of completed turns, as reported by claude',
      labelNames: ['model'],
      registers,
    });
    this.errors = new Counter({
      name: 'agentd_errors_total',
      help: 'Agent errors and failed executions, by error type and whether it was transient',
      labelNames: ['error_type', 'is_transient'],
      registers,
    });
    this.retries = new Counter({
      name: 'agentd_retries_total',
      help: 'Retries of API calls or turns, by error type',
      labelNames: ['error_type'],
      registers,
    });
    this.journalEvents = new Counter({
      name: 'agentd_journal_events_total',
      help: 'Events journaled since the server started, by type',
      labelNames: ['type'],
      registers,
    });
    this.pendingApprovals = new Gauge({
      name: 'agentd_pending_approvals',
      help: 'Interactions (approvals and questions) waiting for an answer',
      registers,
    });
    this.sessionsActive = new Gauge({
      name: 'agentd_sessions_active',
      help: 'Sessions that are not archived',
      registers,
    });
    this.queriesRunning = new Gauge({
      name: 'agentd_queries_running',
      help: 'Executions in the middle of a turn',
      registers,
    });
    this.liveWorkers = new Gauge({
      name: 'agentd_live_workers',
      help: 'Worker processes that hold or are taking a session (starting, running, idle, stopping)',
      registers,
    });
    this.duties = options.duties ?? {};
    this.dutyLeader = new Gauge({
      name: 'agentd_duty_leader',
      help: 'Whether this node holds a cluster-wide duty (1) or another node does (0), by duty',
      labelNames: ['duty'],
      registers,
    });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Marks where counting starts: the sessions that exist now count from their current end. */
  async baseline(): Promise<void> {
    for (const [sessionId, cursor] of await this.runtime.lastCursors()) this.cursors.set(sessionId, cursor);
  }

  /** The Prometheus text format, after counting what was journaled since the last scrape. */
  async render(): Promise<string> {
    await this.refresh();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Scrapes may overlap; each refresh runs after the previous one so nothing is counted twice. */
  refresh(): Promise<void> {
    const next = this.pending.then(() => this.collect());
    this.pending = next.catch(() => {});
    return next;
  }

  private async collect(): Promise<void> {
    const { runtime } = this;
    let sessions = await runtime.listSessions();
    let byId = new Map(sessions.map((session) => [session.id, session]));
    for (;;) {
      const page = await runtime.journalAcross(this.cursors, journalPage);
      if (page.some((event) => !byId.has(event.sessionId))) {
        // Sessions created since the listing above.
        sessions = await runtime.listSessions();
        byId = new Map(sessions.map((session) => [session.id, session]));
      }
      for (const event of page) {
        this.cursors.set(event.sessionId, event.cursor);
        this.count(event, byId.get(event.sessionId)?.model ?? null);
      }
      if (page.length < journalPage) break;
    }
    const [pending, live, running] = await Promise.all([
      runtime.interactions({ state: 'pending' }),
      runtime.executionsInState(liveExecutionStates),
      runtime.executionsInState(['running']),
    ]);
    this.pendingApprovals.set(pending.length);
    this.sessionsActive.set(sessions.filter((session) => session.state === 'active').length);
    this.liveWorkers.set(live.length);
    this.queriesRunning.set(running.length);
    for (const [duty, leadership] of Object.entries(this.duties))
      this.dutyLeader.set({ duty }, leadership.leader ? 1 : 0);
  }

  private count(event: JournalRecord, model: string | null): void {
    this.journalEvents.inc({ type: event.type });
    switch (event.type) {
      case 'agent.turn.completed':
        this.countTurn(event.data, model);
        return;
      case 'agent.error':
        this.errors.inc({
          error_type: event.data.error.code,
          is_transient: String(event.data.error.transient),
        });
        return;
      case 'execution.failed':
        this.errors.inc({ error_type: event.data.error.code, is_transient: 'false' });
        return;
      case 'agent.retry':
        this.retries.inc({ error_type: event.data.error.code });
        return;
    }
  }

  private countTurn(turn: JournalData<'agent.turn.completed'>, sessionModel: string | null): void {
    const perModel = Object.entries(turn.modelUsage);
    // The turn's model is the one that wrote the most; claude's side calls (titles) use smaller ones.
    const main =
      perModel.sort(([, a], [, b]) => b.outputTokens - a.outputTokens)[0]?.[0] ?? sessionModel ?? 'default';
    this.queries.inc({ status: turn.isError ? 'error' : 'success', model: main });
    this.queryDuration.observe({ model: main }, turn.durationMs / 1000);
    const usages: Array<[string, ModelUsage]> =
      perModel.length > 0 ? perModel : [[main, { ...turn.usage, costUsd: turn.costUsd }]];
    for (const [model, usage] of usages) {
      for (const [key, direction] of tokenDirections) {
        if (usage[key] > 0) this.tokens.inc({ direction, model }, usage[key]);
      }
      if (usage.costUsd > 0) this.cost.inc({ model }, usage.costUsd);
    }
  }
}
