import { randomUUID } from 'node:crypto';
import type { HostTool } from '../backends/agent-backend.js';
import type { JournalEvent, SeedOutcome } from '../journal/journal-event.js';
import { readJournal } from '../journal/read-journal.js';
import type { Store } from '../store/store.js';
import { continuePrompt, retryPrompt, taskPrompt } from './prompts.js';
import { checkEnv, runCheck } from './run-check.js';
import { defaultCheckTimeoutSeconds } from './seed-defaults.js';
import { iterationMessageId, readSeedRun } from './seed-journal.js';
import { plural } from './seed-lines.js';
import type { SeedRunView } from './seed-view.js';

type ProgressTool = typeof import('./progress-tool.js').progressTool;

export interface SeedDriverOptions {
  store: Store;
  sessionId: string;
  /** Journals events of this execution, fenced by its lease. */
  append: (events: JournalEvent[]) => Promise<void>;
  /** The environment checks start from (credentials are removed). */
  env: Record<string, string | undefined>;
  /** Why the worker stops, once it does: checks are then killed and left to run again. */
  stopping: () => string | undefined;
  stop: (reason: string) => void;
  log: (line: string) => void;
}

/**
 * The verification loop of a seed run, in the worker that owns the session. After every turn (and
 * once when the worker starts) it reads the run from the journal and takes the next step: run the
 * checks of an iteration whose turn ended, then finish the run or journal the next iteration's
 * input under an idempotent message id. Everything it decides on is in the journal, so a worker
 * that dies anywhere leaves a run the next worker continues from the same point.
 */
export class SeedDriver {
  private firstStep = true;

  private constructor(
    private readonly options: SeedDriverOptions,
    private readonly initial: SeedRunView,
    private readonly progressTool: ProgressTool,
  ) {}

  /** The driver of the session's seed run, or null when the session runs no seed. */
  static async open(options: SeedDriverOptions): Promise<SeedDriver | null> {
    // A seed run's first event is its seed (runtime.seeds.start): any other session is known by one read.
    const [first] = await readJournal(options.store, options.sessionId, { limit: 1 });
    if (first?.type !== 'seed.started') return null;
    const view = await readSeedRun(options.store, options.sessionId);
    if (!view) return null;
    // The tool's input is a zod shape: loaded by a seed run's worker only, not by every worker.
    const { progressTool } = await import('./progress-tool.js');
    return new SeedDriver(options, view, progressTool);
  }

  /** agentd's tools for the agent: `report_progress`. */
  hostTools(): HostTool[] {
    return [this.progressTool({ seed: this.initial.seed, record: (event) => this.options.append([event]) })];
  }

  /** Called when the worker starts and after every turn; never throws (the worker goes on). */
  async afterTurn(): Promise<void> {
    const first = this.firstStep;
    this.firstStep = false;
    try {
      await this.step(first);
    } catch (error) {
      this.options.log(`seed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }

  private async step(first: boolean): Promise<void> {
    const { store, sessionId } = this.options;
    if (this.options.stopping()) return;
    let view = await readSeedRun(store, sessionId);
    if (!view) return;
    if (view.finished) {
      this.options.stop('seed run finished');
      return;
    }
    // Inputs that wait are delivered first; their turns end here again.
    if ((await store.listInputs(sessionId, { states: ['accepted', 'dispatching'] })).length > 0) return;
    const iteration = Math.max(view.iteration, 1);
    const latest = view.latestSeedInput;
    if (!latest) {
      // The run was journaled but its first input was not (agentd stopped in between).
      await this.sendInput(view, {
        messageId: iterationMessageId(view.runId, 1),
        text: taskPrompt(view.seed),
        iteration: 1,
      });
      return;
    }
    const end = view.latestTurnEnd;
    if (!end || (end.kind === 'error' && end.code === 'cancelled' && first)) {
      // The turn never ended (its worker died, it was stopped) or it was interrupted: continue it.
      await this.continueIteration(view, iteration, latest.messageId);
      return;
    }
    if (end.kind === 'error') {
      if (end.code === 'cancelled') {
        this.options.stop('seed run interrupted');
        return;
      }
      const outcome: SeedOutcome = end.code === 'budget_exceeded' ? 'budget_exceeded' : 'failed';
      await this.finish(view, outcome, `the agent's turn failed: ${end.message} (${end.code})`);
      return;
    }
    if (end.isError) {
      await this.finish(view, 'failed', `the agent's turn ended with ${end.subtype}`);
      return;
    }
    if (!view.checkedIterations.includes(iteration)) {
      if (!(await this.runChecks(view, iteration))) return;
      view = (await readSeedRun(store, sessionId)) ?? view;
    }
    await this.evaluate(view, iteration);
  }

  /** Runs every check of the seed for `iteration`; false when the worker stopped meanwhile. */
  private async runChecks(view: SeedRunView, iteration: number): Promise<boolean> {
    const stopped = new AbortController();
    const watch = setInterval(() => {
      if (this.options.stopping()) stopped.abort();
    }, 100);
    try {
      for (const criterion of view.seed.criteria) {
        if (!criterion.check) continue;
        if (this.options.stopping()) return false;
        const expected = criterion.expect ?? 0;
        const run = await runCheck({
          command: criterion.check,
          cwd: view.cwd,
          timeoutSeconds: criterion.timeout ?? defaultCheckTimeoutSeconds,
          env: checkEnv(this.options.env),
          signal: stopped.signal,
        });
        // A check the stop cut short has no result: it runs again when the run resumes.
        if (run.aborted) return false;
        await this.options.append([
          {
            type: 'seed.check',
            criterionId: criterion.id,
            iteration,
            command: criterion.check,
            exitCode: run.exitCode,
            expected,
            passed: !run.timedOut && run.exitCode === expected,
            timedOut: run.timedOut,
            outputTail: run.outputTail,
            durationMs: run.durationMs,
          },
        ]);
      }
      return true;
    } finally {
      clearInterval(watch);
    }
  }

  /** After the checks of `iteration`: satisfied, out of budget or iterations, or one more iteration. */
  private async evaluate(view: SeedRunView, iteration: number): Promise<void> {
    const unmet = view.criteria.filter((criterion) => !criterion.met);
    if (unmet.length === 0) {
      const verified = view.criteria.filter((criterion) => criterion.state === 'verified').length;
      const claimed = view.criteria.length - verified;
      await this.finish(
        view,
        'satisfied',
        `all ${plural(view.criteria.length, 'criterion', 'criteria')} met: ${verified} verified by their checks, ${claimed} claimed by the agent`,
      );
      return;
    }
    const ids = unmet.map((criterion) => criterion.id).join(', ');
    const budget = view.seed.budgetUsd;
    if (budget !== undefined && view.costUsd >= budget) {
      await this.finish(
        view,
        'budget_exceeded',
        `spent $${view.costUsd.toFixed(4)} of $${budget} with ${ids} not met`,
      );
      return;
    }
    if (iteration >= view.maxIterations) {
      await this.finish(
        view,
        'unsatisfied',
        `${ids} not met after ${iteration} of ${view.maxIterations} iterations`,
      );
      return;
    }
    const next = iteration + 1;
    await this.sendInput(view, {
      messageId: iterationMessageId(view.runId, next),
      text: retryPrompt({ iteration: next, maxIterations: view.maxIterations, unmet }),
      iteration: next,
      failing: unmet.map((criterion) => criterion.id),
    });
  }

  private async continueIteration(view: SeedRunView, iteration: number, latest: string): Promise<void> {
    const match = /:continue:(\d+)$/.exec(latest);
    const count = match ? Number(match[1]) + 1 : 1;
    await this.sendInput(view, {
      messageId: `${iterationMessageId(view.runId, iteration)}:continue:${count}`,
      text: continuePrompt(iteration),
    });
  }

  /**
   * Journals an input once: the message id makes it idempotent, so a worker that died after
   * journaling it (or halfway) never sends it twice; a half-journaled one is completed.
   */
  private async sendInput(
    view: SeedRunView,
    input: { messageId: string; text: string; iteration?: number; failing?: string[] },
  ): Promise<void> {
    const { store, sessionId } = this.options;
    const { input: record, created } = await store.addInput({
      id: randomUUID(),
      sessionId,
      messageId: input.messageId,
      text: input.text,
      now: Date.now(),
    });
    if (!created && view.latestSeedInput?.messageId === input.messageId) return;
    const events: JournalEvent[] = [
      { type: 'input.accepted', inputId: record.id, messageId: record.messageId, text: record.text },
    ];
    if (input.iteration !== undefined && input.iteration > view.iteration)
      events.push({
        type: 'seed.iteration',
        iteration: input.iteration,
        messageId: input.messageId,
        failing: input.failing ?? [],
      });
    await this.options.append(events);
    this.options.log(`seed: journaled ${input.messageId}`);
  }

  private async finish(view: SeedRunView, outcome: SeedOutcome, reason: string): Promise<void> {
    await this.options.append([
      { type: 'seed.finished', outcome, reason, iterations: Math.max(view.iteration, 1) },
    ]);
    this.options.log(`seed: ${outcome}: ${reason}`);
    this.options.stop('seed run finished');
  }
}
