/**
 * The environment of every process an end-to-end test starts (agentd, its workers, `claude`):
 * only what the test sets. Nothing of the developer's shell passes but PATH, so `CLAUDE_*`
 * settings, credentials or `AGENTD_DATA_DIR` there cannot change a test's outcome, and HOME,
 * `CLAUDE_CONFIG_DIR` and the XDG folders point inside the test's own temporary root: claude's
 * transcripts and agentd's default data dir never land in the real home directory.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export type Env = Record<string, string | undefined>;

/**
 * Taken from the shell: `claude` runs its tools (Bash, rg) through PATH. Node needs nothing:
 * children are started with `process.execPath`.
 */
const passedThrough = ['PATH'] as const;

/**
 * A clean environment whose home is `ROOT/home` (created here), with `extra` on top. The temporary
 * directory is `ROOT/tmp`, so what claude and its tools write there goes away with the root.
 */
export function isolatedEnv(root: string, extra: Env = {}): Env {
  const home = join(root, 'home');
  const claudeConfigDir = join(home, '.claude');
  const temporary = join(root, 'tmp');
  mkdirSync(claudeConfigDir, { recursive: true });
  mkdirSync(temporary, { recursive: true });
  const env: Env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: claudeConfigDir,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: temporary,
    // No update checks, telemetry or other calls to the outside: the tests have no network.
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  for (const name of passedThrough) env[name] = process.env[name];
  return { ...env, ...extra };
}

/**
 * Refuses an environment that is not an isolatedEnv (the developer's `process.env`, or one
 * spread from it) and returns its private home, a working directory outside the checkout.
 */
export function assertIsolated(env: Env): string {
  const home = env.HOME;
  if (env === process.env || !home || home === process.env.HOME || !env.CLAUDE_CONFIG_DIR?.startsWith(home))
    throw new Error('an e2e test started a process without an isolated environment (use isolatedEnv)');
  const inherited = Object.keys(env).filter(
    (name) =>
      !passedThrough.some((kept) => kept === name) &&
      env[name] !== undefined &&
      env[name] === process.env[name],
  );
  if (inherited.length > 0)
    throw new Error(`an e2e test passed on the developer's environment: ${inherited.join(', ')}`);
  return home;
}
