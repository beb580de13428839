/**
 * Several agentd nodes on one PostgreSQL database, for the end-to-end tests: each node has its own
 * root (home, CLAUDE_CONFIG_DIR, data directory: nothing shared on disk), and all of them share a
 * fresh schema of the test server and one scripted model.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/index.js';
import { isProcessAlive } from '../../src/journal/process-identity.js';
import type { Script, ScriptedModel } from '../../src/testing/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import { freshSchema } from '../postgres/test-database.js';
import { type Env, isolatedEnv, isRunning, killGroup, waitFor } from './helpers.js';

export interface Node {
  name: string;
  root: string;
  dataDir: string;
  env: Env;
  /** Opens a runtime of this node (closed at cleanup). */
  openRuntime(): Promise<Runtime>;
}

export interface Cluster {
  storeUrl: string;
  model: ScriptedModel;
  /** The agents' working directory: the checkout a session works on, present on every node. */
  cwd: string;
  node(name: string): Node;
  cleanup(): Promise<void>;
}

export async function createCluster(options: { url: string; script: Script }): Promise<Cluster> {
  const schema = freshSchema('e2e');
  const storeUrl = `${options.url}?schema=${schema}`;
  const model = await startScriptedModel({ script: options.script });
  const shared = mkdtempSync(join(tmpdir(), 'agentd-nodes-'));
  const cwd = join(shared, 'work');
  mkdirSync(cwd, { recursive: true });
  const runtimes: Runtime[] = [];
  const roots: string[] = [shared];
  const node = (name: string): Node => {
    const root = mkdtempSync(join(tmpdir(), `agentd-node-${name}-`));
    roots.push(root);
    // Leases short enough that a dead node's sessions lapse within a test.
    const env = isolatedEnv(root, {
      ...model.env(),
      AGENTD_STORE_URL: storeUrl,
      AGENTD_LEASE_TTL_MS: '3000',
    });
    const dataDir = join(root, 'data');
    return {
      name,
      root,
      dataDir,
      env,
      async openRuntime() {
        const runtime = await createRuntime({ dataDir, env });
        runtimes.push(runtime);
        return runtime;
      },
    };
  };
  return {
    storeUrl,
    model,
    cwd,
    node,
    async cleanup() {
      await killAllWorkers(storeUrl);
      for (const runtime of runtimes) await runtime.close().catch(() => {});
      await model.close();
      for (const root of roots) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** SIGKILLs every worker (with its claude) that ever ran on the shared store, from any node. */
async function killAllWorkers(storeUrl: string): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'agentd-kill-'));
  let runtime: Runtime | undefined;
  try {
    runtime = await createRuntime({ dataDir: join(scratch, 'data'), env: { AGENTD_STORE_URL: storeUrl } });
    const pids: number[] = [];
    for (const session of await runtime.store.listSessions()) {
      for (const execution of await runtime.store.listExecutions(session.id)) {
        if (execution.pid !== null && isProcessAlive(execution.pid, execution.processStartTime)) {
          pids.push(execution.pid);
          killGroup(execution.pid);
        }
      }
    }
    await waitFor(() => pids.every((pid) => !isRunning(pid)), { what: 'workers to exit', timeoutMs: 10_000 });
  } catch {
    // The store is gone already: nothing of ours can be running on it.
  } finally {
    await runtime?.close().catch(() => {});
    rmSync(scratch, { recursive: true, force: true });
  }
}
