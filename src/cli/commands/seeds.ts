import type { Command } from 'commander';
import type { JournalRecord } from '../../journal/journal-event.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { SeedRunStatus } from '../../runtime/seeds.js';
import { loadSeedFile } from '../../seeds/seed-file.js';
import { isSeedRecord, seedEventLine } from '../../seeds/seed-lines.js';
import { seedJsonSchema } from '../../seeds/seed-schema.js';
import { seedRunView } from '../../seeds/seed-view.js';
import type { CliContext } from '../context.js';
import { exitCodes } from '../exit-codes.js';
import { actorOf, addRuntimeOptions, type DataDirFlags, printJson, withRuntime } from '../runtime-context.js';
import { LiveDisplay, liveLines, resultJson, resultText } from '../seed-display.js';

interface SeedRunFlags extends DataDirFlags {
  detach?: boolean;
  offline?: boolean;
  launchId?: string;
  org?: string;
}

/** The exit code a run's state gives `seed run` and `seed resume`: 0 only when satisfied. */
export function seedExitCode(state: SeedRunStatus['state']): number {
  if (state === 'satisfied') return exitCodes.success;
  if (state === 'interrupted') return exitCodes.interrupted;
  return exitCodes.failure;
}

/** Records a `--json` watcher prints: the seed's, the agent's tool calls and turns, the worker's. */
const jsonTypes = new Set([
  'agent.tool_call',
  'agent.turn.completed',
  'execution.started',
  'execution.stopped',
  'execution.failed',
]);

/**
 * Follows a run until it ends or its worker does: a live display on a terminal, plain lines on a
 * pipe, NDJSON with `--json`. Ctrl-C stops the worker (the run is `interrupted`, resumable); a
 * second Ctrl-C leaves at once. Events up to `after` were there before: they only build the view.
 */
async function watch(
  runtime: Runtime,
  runId: string,
  context: CliContext,
  options: { json: boolean; after: number },
): Promise<number> {
  const tty = !options.json && process.stdout.isTTY === true;
  const display = tty ? new LiveDisplay(context.stdout) : null;
  const records: JournalRecord[] = [];
  const controller = new AbortController();
  const redraw = () => {
    const view = seedRunView(runId, records);
    if (display && view)
      display.draw(
        liveLines(view, view.finished ? view.finished.outcome : 'running', Date.now() - view.startedAt),
      );
  };
  const timer = display ? setInterval(redraw, 250) : undefined;
  let stopping = false;
  const onSigint = () => {
    if (stopping) process.exit(exitCodes.interrupted);
    stopping = true;
    context.stderr.write('\nstopping the run (Ctrl-C again to leave at once)…\n');
    void runtime.seeds.stop(runId).catch(() => controller.abort());
  };
  process.on('SIGINT', onSigint);
  const onOutputClosed = () => controller.abort();
  context.outputClosed.addEventListener('abort', onOutputClosed);
  try {
    for await (const record of runtime.events(runId, { follow: true, signal: controller.signal })) {
      records.push(record);
      if (record.cursor <= options.after) continue;
      if (options.json) {
        if (record.type.startsWith('seed.') || jsonTypes.has(record.type))
          context.stdout.write(`${JSON.stringify(record)}\n`);
      } else if (!display) {
        if (isSeedRecord(record)) context.stdout.write(`${seedEventLine(record)}\n`);
        else if (record.type === 'agent.tool_call')
          context.stdout.write(`tool: ${record.data.detail || record.data.name}\n`);
      } else redraw();
      if (record.type === 'seed.finished') break;
      if (record.type === 'execution.stopped' || record.type === 'execution.failed') {
        // The worker ended without finishing the run: stopped, or it died.
        if (!(await runtime.liveExecution(runId))) break;
      }
    }
  } finally {
    if (timer) clearInterval(timer);
    process.off('SIGINT', onSigint);
    context.outputClosed.removeEventListener('abort', onOutputClosed);
  }
  if (display) redraw();
  const status = await runtime.seeds.status(runId);
  if (options.json)
    context.stdout.write(`${JSON.stringify({ type: 'seed.result', ...resultJson(status) })}\n`);
  else context.stdout.write(`\n${resultText(status)}`);
  return seedExitCode(status.state);
}

export function registerSeedCommands(program: Command, context: CliContext): void {
  const seed = program
    .command('seed')
    .description('run a goal with acceptance criteria to a verified end (docs/seeds.md)');

  addRuntimeOptions(
    seed
      .command('run')
      .description('run a seed file (YAML or JSON); exit 0 only when every criterion is met')
      .argument('<file>', 'the seed file'),
  )
    .option('--detach', 'start the run and print its id; the worker goes on alone')
    .option('--offline', 'answer with the built-in demo model: no credentials, no network')
    .option('--launch-id <id>', 'makes the start idempotent: the same launch id returns the same run')
    .option('--org <organization>', 'organization of the seed role (default: default)')
    .action(async (file: string, flags: SeedRunFlags) => {
      const loaded = loadSeedFile(file);
      context.exitCode = await withRuntime(flags, context, async (runtime) => {
        const started = await runtime.seeds.start({
          seed: loaded.seed,
          cwd: loaded.cwd,
          ...(flags.offline ? { offline: true } : {}),
          ...(flags.launchId ? { launchId: flags.launchId } : {}),
          ...(flags.org ? { organization: flags.org } : {}),
          ...actorOf(flags),
        });
        if (flags.detach) {
          if (flags.json) printJson(context, resultJson(started));
          else context.stdout.write(`${started.runId}\n`);
          return exitCodes.success;
        }
        if (!flags.json && process.stdout.isTTY !== true) context.stdout.write(`run ${started.runId}\n`);
        return watch(runtime, started.runId, context, { json: flags.json === true, after: 0 });
      });
    });

  addRuntimeOptions(
    seed
      .command('status')
      .description("a seed run's state, criteria, checks and usage")
      .argument('<run>', 'run id'),
  ).action(async (runId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const status = await runtime.seeds.status(runId);
      if (flags.json) printJson(context, resultJson(status));
      else context.stdout.write(resultText(status));
    });
  });

  addRuntimeOptions(
    seed
      .command('resume')
      .description('continue an interrupted run where it stopped, keeping every criterion')
      .argument('<run>', 'run id'),
  )
    .option('--detach', 'resume and return; the worker goes on alone')
    .action(async (runId: string, flags: SeedRunFlags) => {
      context.exitCode = await withRuntime(flags, context, async (runtime) => {
        const after = await runtime.lastCursor(runId);
        const resumed = await runtime.seeds.resume(runId);
        if (flags.detach) {
          if (flags.json) printJson(context, resultJson(resumed));
          else context.stdout.write(`${runId} ${resumed.state}\n`);
          return exitCodes.success;
        }
        return watch(runtime, runId, context, { json: flags.json === true, after });
      });
    });

  addRuntimeOptions(
    seed
      .command('stop')
      .description("stop a run's worker: the run is interrupted, and resumable")
      .argument('<run>', 'run id'),
  ).action(async (runId: string, flags: DataDirFlags) => {
    await withRuntime(flags, context, async (runtime) => {
      const status = await runtime.seeds.stop(runId);
      if (flags.json) printJson(context, resultJson(status));
      else context.stdout.write(`${runId} ${status.live ? 'stopping' : status.state}\n`);
    });
  });

  addRuntimeOptions(seed.command('list').description('seed runs, newest first')).action(
    async (flags: DataDirFlags) => {
      await withRuntime(flags, context, async (runtime) => {
        const runs = await runtime.seeds.list();
        if (flags.json) {
          printJson(context, runs.map(resultJson));
          return;
        }
        for (const run of runs) {
          const met = run.criteria.filter((criterion) => criterion.met).length;
          context.stdout.write(
            `${run.runId}  ${run.state.padEnd(15)}  ${met}/${run.criteria.length} met  iteration ${Math.max(run.iteration, 1)}/${run.maxIterations}  ${run.seed.goal.split('\n')[0]}\n`,
          );
        }
      });
    },
  );

  seed
    .command('schema')
    .description("the seed file's JSON Schema")
    .action(() => {
      printJson(context, seedJsonSchema());
    });
}
