/**
 * A private PostgreSQL cluster for tests: initdb in a temporary directory, started with pg_ctl on
 * a free port, reachable at 127.0.0.1 with trust authentication. PostgreSQL refuses to run as root,
 * so as root the binaries run as the `postgres` user (Debian's package creates it) via runuser.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface PostgresCluster {
  url: string;
  dataDir: string;
  port: number;
  /** `pg_ctl stop -m immediate`: the server dies as on a crash, without a checkpoint. */
  kill(): void;
  /** Starts the stopped server again on the same port and data. */
  start(): void;
  /** Stops the server and removes its directory. */
  destroy(): void;
}

/** The directory of initdb/pg_ctl from Debian's packages (newest version), or null when none is installed. */
export function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((left, right) => Number(right) - Number(left));
  return versions.length === 0 ? null : join(root, versions[0]!, 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const asRoot = process.getuid?.() === 0;

function run(bin: string, tool: string, args: string[]): void {
  const command = join(bin, tool);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  // A clean environment: PG* variables of the developer's shell must not steer the test server.
  execFileSync(file, argv, { stdio: 'pipe', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' } });
}

/** Starts a new cluster; throws when PostgreSQL is not installed. */
export async function startCluster(options: { parent?: string } = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  if (bin === null) {
    throw new Error(
      'PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install postgresql',
    );
  }
  // Outside the test run's TMPDIR by default: the cluster outlives single test files.
  const base = mkdtempSync(join(options.parent ?? '/tmp', 'agentd-pg-'));
  const dataDir = join(base, 'data');
  if (asRoot) {
    chmodSync(base, 0o755);
    chownSync(base, Number(execFileSync('id', ['-u', 'postgres']).toString()), 0);
  }
  run(bin, 'initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--locale=C',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const port = await freePort();
  const start = () =>
    run(bin, 'pg_ctl', [
      '-D',
      dataDir,
      '-l',
      join(base, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -k ${base} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      'start',
    ]);
  start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    dataDir,
    port,
    kill() {
      run(bin, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    destroy() {
      if (running) {
        try {
          run(bin, 'pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // Already gone.
        }
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}
