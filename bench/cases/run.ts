import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel } from '../../src/testing/index.js';
import type { BenchCase, BenchContext } from '../lib/bench-case.js';
import { type ProcessTiming, timeProcess } from '../lib/process-timing.js';
import { ms, summarize } from '../lib/stats.js';

type Variant = 'agentd' | 'sdk';
const metrics = ['firstLineMs', 'firstAnswerMs', 'exitMs'] as const;
const metricNames: Record<(typeof metrics)[number], string> = {
  firstLineMs: 'first event line on stdout',
  firstAnswerMs: "first line with the model's answer",
  exitMs: 'process exit',
};

/** The parent's environment without credentials or claude settings of its own. */
function cleanEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(ANTHROPIC_|CLAUDE_|CLAUDECODE)/.test(name)) env[name] = value;
  }
  return env;
}

async function measure(context: BenchContext): Promise<Record<Variant, ProcessTiming[]>> {
  const model = await startScriptedModel({ script: () => ({ text: 'Hello! How can I help?' }) });
  const cwd = await mkdtemp(join(tmpdir(), 'agentd-bench-run-'));
  const configDir = await mkdtemp(join(tmpdir(), 'agentd-bench-claude-'));
  // `agentd run` journals its sessions: in a data dir of its own, not the user's.
  const dataDir = await mkdtemp(join(tmpdir(), 'agentd-bench-data-'));
  const env = {
    ...cleanEnv(),
    ...model.env(),
    AGENTD_DATA_DIR: dataDir,
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const variants: Record<Variant, () => Promise<ProcessTiming>> = {
    agentd: () =>
      timeProcess({
        command: process.execPath,
        args: [join(context.root, 'bin/agentd.js'), 'run', 'hi', '--json'],
        env,
        cwd,
        isAnswer: (line) => line.includes('"type":"agent.message"'),
      }),
    sdk: () =>
      timeProcess({
        command: process.execPath,
        args: [join(context.root, 'bench/plain-sdk.mjs'), 'hi'],
        env,
        cwd,
        isAnswer: (line) => line.startsWith('{"type":"assistant"'),
      }),
  };
  const samples: Record<Variant, ProcessTiming[]> = { agentd: [], sdk: [] };
  try {
    // One unmeasured run each: claude's first start in a fresh config directory does extra work.
    await variants.agentd();
    await variants.sdk();
    for (let index = 0; index < context.runs; index++) {
      // Alternate which goes first so that neither always runs on a warmer machine.
      const order: Variant[] = index % 2 === 0 ? ['agentd', 'sdk'] : ['sdk', 'agentd'];
      for (const variant of order) {
        const timing = await variants[variant]();
        samples[variant].push(timing);
        context.log(
          `  ${variant.padEnd(6)} #${index + 1}: first line ${ms(timing.firstLineMs)}, answer ${ms(timing.firstAnswerMs)}, exit ${ms(timing.exitMs)}`,
        );
      }
    }
  } finally {
    await model.close();
    await rm(cwd, { recursive: true, force: true });
    await rm(configDir, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
  return samples;
}

export const runCase: BenchCase = {
  name: 'run',
  description:
    '`agentd run "hi" --json` against a plain SDK `query()` script, both spawned as processes and answered by the scripted model server',
  async run(context) {
    const samples = await measure(context);
    const summary = Object.fromEntries(
      metrics.map((metric) => {
        const agentd = summarize(samples.agentd.map((sample) => sample[metric]));
        const sdk = summarize(samples.sdk.map((sample) => sample[metric]));
        return [metric, { agentd, sdk, ratio: agentd.median / sdk.median }];
      }),
    ) as Record<
      (typeof metrics)[number],
      { agentd: ReturnType<typeof summarize>; sdk: ReturnType<typeof summarize>; ratio: number }
    >;
    const rows = metrics.map((metric) => {
      const { agentd, sdk, ratio } = summary[metric];
      return `| ${metricNames[metric]} | ${ms(agentd.median)} (${ms(agentd.min)}–${ms(agentd.max)}) | ${ms(sdk.median)} (${ms(sdk.min)}–${ms(sdk.max)}) | ${ratio.toFixed(2)} |`;
    });
    const markdown = [
      `Median wall time from spawn, ${context.runs} interleaved runs each (min–max in brackets).`,
      '',
      '| measured | A: `agentd run "hi" --json` | B: plain SDK `query()` | A/B |',
      '| --- | --- | --- | --- |',
      ...rows,
    ].join('\n');
    return { markdown, data: { runs: context.runs, summary, samples } };
  },
};
