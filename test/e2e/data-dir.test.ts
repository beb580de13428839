import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { isEvent, isolatedEnv, killWorkers, readUntil, runCli } from './helpers.js';

it('a relative --data-dir is the same folder for the worker: an offline session started with it settles', async () => {
  const root = mkdtempSync(join(tmpdir(), 'agentd-e2e-rel-'));
  const env = isolatedEnv(root);
  // The CLI runs in the private HOME; the worker it starts runs in the data dir itself.
  const dataDir = join(env.HOME!, 'relative-data');
  try {
    const started = await runCli(
      ['start', '--offline', 'hello', '--cwd', root, '--data-dir', 'relative-data'],
      env,
    );
    expect(started.code, started.stderr).toBe(0);
    const runtime = await createRuntime({ dataDir, env: {} });
    try {
      const events = await readUntil(runtime, started.stdout.trim(), isEvent('work.settled'), {
        timeoutMs: 30_000,
      });
      expect(events.some(isEvent('agent.message'))).toBe(true);
    } finally {
      await runtime.close();
    }
  } finally {
    await killWorkers(dataDir);
    rmSync(root, { recursive: true, force: true });
  }
});
