import { spawn } from 'node:child_process';

/** How much of a check's output is kept: its end, where the failure usually is. */
export const checkOutputLimit = 8 * 1024;

export interface RunCheckOptions {
  command: string;
  cwd: string;
  timeoutSeconds: number;
  /** The check's environment: the worker's, without its credentials. */
  env: Record<string, string | undefined>;
  /** Aborted (the worker stops): the check is killed and its result is not a result. */
  signal?: AbortSignal;
  /** @default checkOutputLimit */
  outputLimit?: number;
}

export interface CheckRun {
  exitCode: number | null;
  timedOut: boolean;
  /** True when `signal` aborted it: no result, it runs again on resume. */
  aborted: boolean;
  outputTail: string;
  durationMs: number;
}

/**
 * Runs one check as `/bin/sh -c COMMAND` in its own process group, stdout and stderr together as
 * they come, keeping the last `outputLimit` bytes. A timeout or an abort kills the whole group.
 */
export function runCheck(options: RunCheckOptions): Promise<CheckRun> {
  const limit = options.outputLimit ?? checkOutputLimit;
  const started = Date.now();
  return new Promise((resolve) => {
    let output = Buffer.alloc(0);
    let timedOut = false;
    let aborted = false;
    const child = spawn('/bin/sh', ['-c', options.command], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      output = Buffer.concat([output, chunk]);
      if (output.length > limit * 2) output = output.subarray(output.length - limit);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutSeconds * 1000);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    const finish = (exitCode: number | null, spawnError?: Error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      let tail = output.subarray(Math.max(0, output.length - limit)).toString('utf8');
      if (spawnError) tail += `${tail ? '\n' : ''}agentd could not run the check: ${spawnError.message}`;
      resolve({ exitCode, timedOut, aborted, outputTail: tail, durationMs: Date.now() - started });
    };
    child.on('error', (error) => finish(null, error));
    child.on('close', (code) => finish(timedOut || aborted ? null : code));
  });
}

/** Names that hold secrets in an environment: a check (the user's command) never gets them. */
const secretName = /(API_KEY|AUTH_TOKEN|OAUTH_TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;

/** The worker's environment as a check sees it: without credentials. */
export function checkEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !secretName.test(name)));
}
