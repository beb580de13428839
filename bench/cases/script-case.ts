import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** Runs a standalone benchmark script (`node --import tsx bench/scripts/NAME.ts`) and parses its JSON. */
export async function runScript(options: {
  root: string;
  script: string;
  runs: number;
  log: (line: string) => void;
}): Promise<Record<string, unknown>> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(options.root, 'bench', 'scripts', options.script)],
    {
      cwd: options.root,
      env: { ...process.env, BENCH_RUNS: String(options.runs) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => options.log(chunk.toString('utf8').trimEnd()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`bench/scripts/${options.script} exited with ${code}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}
