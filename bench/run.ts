/**
 * `npm run bench [-- NAME...]`: runs the benchmarks in bench/cases (all, or those named), prints a
 * markdown report, and writes each one's figures to bench/results/NAME.json.
 * BENCH_RUNS sets the repetitions (default 10).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchCases } from './cases/index.js';
import { machine } from './lib/machine.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'bench/results');

function runsFromEnv(): number {
  const value = process.env.BENCH_RUNS;
  if (value === undefined || value === '') return 10;
  const runs = Number(value);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`BENCH_RUNS must be a whole number of 1 or more, got ${value}`);
  return runs;
}

const names = process.argv.slice(2);
const unknown = names.filter((name) => !benchCases.some((entry) => entry.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown benchmark ${unknown.join(', ')}; known: ${benchCases.map((entry) => entry.name).join(', ')}`,
  );
  process.exit(2);
}
const selected = names.length === 0 ? benchCases : benchCases.filter((entry) => names.includes(entry.name));
const runs = runsFromEnv();
const host = machine();
await mkdir(resultsDir, { recursive: true });

const report: string[] = [
  `Machine: ${host.cpus} × ${host.cpuModel}, ${host.memoryGb} GB, Node ${host.node}, ${host.platform}, load average ${host.loadAverage} at start`,
];
for (const benchCase of selected) {
  console.error(`bench ${benchCase.name}: ${benchCase.description}`);
  const result = await benchCase.run({ runs, root, log: (line) => console.error(line) });
  const file = join(resultsDir, `${benchCase.name}.json`);
  await writeFile(
    file,
    `${JSON.stringify({ name: benchCase.name, description: benchCase.description, date: new Date().toISOString(), machine: host, ...result.data }, null, 2)}\n`,
  );
  report.push(
    '',
    `## ${benchCase.name}`,
    '',
    benchCase.description,
    '',
    result.markdown,
    '',
    `(figures: ${file})`,
  );
}
console.log(report.join('\n'));
