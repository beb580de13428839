/**
 * A standalone A2A server for the end-to-end tests: `mountA2a` on a fresh Hono app, served by
 * @hono/node-server on a free port, over a runtime on a temporary data directory. Nothing of the
 * REST server (src/server/app.ts) is involved. Also a recording proxy in front of the scripted
 * model, which tells whether `claude` cut a streamed answer short.
 */
import { request as httpRequest, type IncomingMessage, Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import type { ClaudeConfig } from '../../src/config/claude-config.js';
import { isProcessAlive } from '../../src/journal/process-identity.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { type A2aMount, type EngineTiming, mountA2a } from '../../src/server/a2a/index.js';
import type { A2aStore } from '../../src/store/a2a-store.js';
import { SqliteA2aStore } from '../../src/store/sqlite/sqlite-a2a-store.js';

import { assertIsolated, type Env } from './isolated-env.js';

export type { Env };

export interface A2aTestServer {
  readonly url: string;
  readonly runtime: Runtime;
  readonly a2a: A2aMount;
  /** The A2A store the mount keeps its tasks in. */
  readonly store: A2aStore;
  /** Stops listening, stops following tasks and closes the runtime; workers keep running. */
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function startA2aServer(options: {
  dataDir: string;
  env: Env;
  cwd: string;
  config?: Partial<ClaudeConfig>;
  timing?: Partial<EngineTiming>;
}): Promise<A2aTestServer> {
  assertIsolated(options.env);
  const runtime = await createRuntime({ dataDir: options.dataDir, env: options.env, pollMs: 25 });
  const store = SqliteA2aStore.open({ path: runtime.paths.database });
  const app = new Hono();
  // No base URL: the card advertises the origin it was requested at.
  const a2a = mountA2a(app, {
    runtime,
    store,
    agentCard: { name: 'agentd-test', description: 'agentd under test' },
    session: { cwd: options.cwd, ...(options.config ? { config: options.config } : {}) },
    timing: { pollMs: 25, livenessMs: 1000, ...options.timing },
    push: { initialDelayMs: 50, maxDelayMs: 200 },
    // Short, so that every streaming test also shows clients skip the keep-alive comments.
    heartbeatMs: 200,
  });
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  const url = `http://127.0.0.1:${await listen(server)}`;
  return {
    url,
    runtime,
    a2a,
    store,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await a2a.close();
      await store.close();
      await runtime.close();
    },
  };
}

/** Stops every session's worker (runtime.stop), then kills what did not stop. */
export async function stopAllWorkers(runtime: Runtime): Promise<void> {
  const sessions = await runtime.listSessions({ limit: 1000 });
  for (const session of sessions) await runtime.stop(session.id);
  const deadline = Date.now() + 15_000;
  for (const session of sessions) {
    while (Date.now() < deadline && (await runtime.liveExecution(session.id))) await sleep(50);
    for (const execution of await runtime.listExecutions(session.id)) {
      if (execution.pid !== null && isProcessAlive(execution.pid, execution.processStartTime)) {
        try {
          process.kill(-execution.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  }
}

export interface StreamRecord {
  path: string;
  /** Whether the whole answer reached `claude`, or `claude` hung up before its end. */
  outcome: 'pending' | 'complete' | 'cut';
  /** The request body's text, for matching a request to a prompt. */
  body: string;
}

/** A pass-through proxy for the scripted model that records how each streamed answer ended. */
export async function startRecordingProxy(upstream: string): Promise<{
  url: string;
  streams: StreamRecord[];
  env(): Record<string, string>;
  close(): Promise<void>;
}> {
  const target = new URL(upstream);
  const streams: StreamRecord[] = [];
  const server = new Server((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const record: StreamRecord = {
        path: incoming.url ?? '',
        outcome: 'pending',
        body: body.toString('utf8'),
      };
      streams.push(record);
      const forward = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: target.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          answer.on('end', () => {
            if (record.outcome === 'pending') record.outcome = 'complete';
          });
        },
      );
      outgoing.on('close', () => {
        if (record.outcome === 'pending') {
          record.outcome = 'cut';
          forward.destroy();
        }
      });
      forward.on('error', () => outgoing.destroy());
      forward.end(body);
    });
  });
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    streams,
    env: () => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'scripted-model-key' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
