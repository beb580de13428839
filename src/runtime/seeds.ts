import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import { InvalidInputError, NotFoundError, StateError } from '../errors/index.js';
import { journalEntry, type SeedOutcome } from '../journal/journal-event.js';
import { progressToolName, seedSystemPrompt, taskPrompt } from '../seeds/prompts.js';
import { defaultSeedTools } from '../seeds/seed-defaults.js';
import { validateSeed } from '../seeds/seed-file.js';
import { iterationMessageId, readSeedRun } from '../seeds/seed-journal.js';
import type { SeedRunView } from '../seeds/seed-view.js';
import type { ExecutionRecord } from '../store/store.js';
import type { Runtime } from './runtime.js';
import type { ActorOptions } from './runtime-context.js';

export interface StartSeedOptions extends ActorOptions {
  /** The seed, validated again here (a library caller may pass any value). */
  seed: unknown;
  /** Where the agent works and the checks run: an absolute path (the seed file's `cwd`, resolved). */
  cwd: string;
  /** @default 'default' */
  organization?: string;
  /** Answer with the built-in demo model. @default the runtime's `offline` */
  offline?: boolean;
  /** Makes starting idempotent: the same launch id returns the same run. */
  launchId?: string;
}

/** `running` while a worker works on it; else how it ended (`interrupted` runs can be resumed). */
export type SeedRunState = 'running' | SeedOutcome;

export interface SeedRunStatus extends SeedRunView {
  state: SeedRunState;
  /** Why it is in that state, in a sentence. */
  reason: string;
  /** The worker working on it, if any. */
  live: ExecutionRecord | null;
  durationMs: number;
}

const seedLaunchPrefix = 'seed:';

/**
 * Seed runs (`runtime.seeds`): a goal with acceptance criteria, run as a session whose worker
 * verifies the criteria itself (src/seeds/seed-driver.ts). A run's id is its session's id.
 */
export class Seeds {
  constructor(private readonly runtime: Runtime) {}

  /** Creates the run's session, journals the seed and its first iteration, and starts its worker. */
  async start(options: StartSeedOptions): Promise<SeedRunStatus> {
    const seed = validateSeed(options.seed);
    if (!options.cwd || !isAbsolute(options.cwd))
      throw new InvalidInputError(`cwd: expected an absolute directory, got "${options.cwd}"`, {
        field: 'cwd',
      });
    const { session, created } = await this.runtime.createSession({
      cwd: options.cwd,
      ...(seed.role ? { role: seed.role } : {}),
      ...(seed.model ? { model: seed.model } : {}),
      ...(options.organization ? { organization: options.organization } : {}),
      ...(options.offline !== undefined ? { offline: options.offline } : {}),
      ...(options.actor ? { actor: options.actor } : {}),
      config: seed.mcpServers ? { mcpServers: seed.mcpServers } : {},
      addendum: {
        systemPrompt: seedSystemPrompt(seed),
        allowedTools: [...(seed.tools ?? defaultSeedTools), progressToolName],
      },
      launchId: `${seedLaunchPrefix}${options.launchId ?? randomUUID()}`,
      title: `seed: ${seed.goal.split('\n')[0]!.slice(0, 80)}`,
      requireCredentials: true,
    });
    const store = this.runtime.store;
    if (created || !(await readSeedRun(store, session.id))) {
      const messageId = iterationMessageId(session.id, 1);
      await store.appendEvents(
        session.id,
        [
          journalEntry({ type: 'seed.started', seed, cwd: session.cwd }),
          journalEntry({ type: 'seed.iteration', iteration: 1, messageId, failing: [] }),
        ],
        { now: Date.now() },
      );
      await this.runtime.send(session.id, { text: taskPrompt(seed), messageId });
    }
    return this.status(session.id);
  }

  /** Where a run stands: each criterion, the iteration, usage, and its state with the reason. */
  async status(runId: string): Promise<SeedRunStatus> {
    // The worker journals the run's end before its execution ends: read in the other order, a run
    // that just finished could show neither finished nor live, and be called interrupted.
    const live = await this.runtime.liveExecution(runId);
    const view = await this.view(runId);
    const now = Date.now();
    const durationMs = (view.endedAt ?? now) - view.startedAt;
    if (view.finished)
      return { ...view, state: view.finished.outcome, reason: view.finished.reason, live, durationMs };
    if (live)
      return {
        ...view,
        state: 'running',
        reason: `iteration ${view.iteration} of ${view.maxIterations}`,
        live,
        durationMs,
      };
    const end = view.lastExecutionEnd;
    const why = end
      ? end.kind === 'failed'
        ? `its worker failed: ${end.reason}`
        : `its worker stopped: ${end.reason}`
      : 'no worker runs it';
    return {
      ...view,
      state: 'interrupted',
      reason: `${why}; continue with agentd seed resume ${runId}`,
      live,
      durationMs,
    };
  }

  /** Every seed run of the data dir, newest first. */
  async list(options: { limit?: number } = {}): Promise<SeedRunStatus[]> {
    const sessions = await this.runtime.listSessions({ limit: options.limit ?? 1000 });
    const runs: SeedRunStatus[] = [];
    for (const session of sessions) {
      if (!session.launchId?.startsWith(seedLaunchPrefix)) continue;
      if (!(await readSeedRun(this.runtime.store, session.id))) continue;
      runs.push(await this.status(session.id));
    }
    return runs;
  }

  /**
   * Continues an interrupted run where it stopped: a new worker takes the session, with every
   * criterion's state; checks that were cut short run again.
   */
  async resume(runId: string): Promise<SeedRunStatus> {
    const status = await this.status(runId);
    if (status.state !== 'interrupted')
      throw new StateError(`seed run ${runId} is ${status.state}: only an interrupted run resumes`, {
        state: status.state,
      });
    await this.runtime.resume(runId);
    return this.status(runId);
  }

  /** Stops the run's worker: the run is `interrupted`, and resumable. */
  async stop(runId: string): Promise<SeedRunStatus> {
    await this.view(runId);
    await this.runtime.stop(runId);
    return this.status(runId);
  }

  private async view(runId: string): Promise<SeedRunView> {
    const session = await this.runtime.store.getSession(runId);
    const view = session ? await readSeedRun(this.runtime.store, runId) : null;
    if (!view) throw new NotFoundError(`seed run ${runId} not found`, { runId });
    return view;
  }
}
