/**
 * The dashboard's browser tests: a real `agentd serve` (the built CLI, as a user starts it) on a
 * scripted model, and Debian's Chromium driven by playwright-core. Chromium gets its own profile
 * and home inside the test's temporary root, like every other process an e2e test starts.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Script, ScriptedModel } from '../../src/testing/index.js';
import { startScriptedModel } from '../../src/testing/index.js';
import {
  type Env,
  isolatedEnv,
  killGroup,
  killWorkers,
  linesOf,
  repoRoot,
  spawnCli,
  waitFor,
} from './helpers.js';

export const chromiumPath = '/usr/bin/chromium';

/** Without the background-networking flags Chromium's own connections are refused on a closed network. */
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const desktop = { width: 1280, height: 800 };
export const phone = { width: 390, height: 844 };

export interface DashboardServer {
  url: string;
  port: number;
  /** SIGTERMs the server and waits for it to exit (its workers keep running). */
  stop(): Promise<void>;
}

export interface DashboardHarness {
  root: string;
  dataDir: string;
  /** The agents' working directory. */
  cwd: string;
  model: ScriptedModel;
  env: Env;
  server: DashboardServer;
  browser: BrowserContext;
  /** A new tab at `path` of the server (its own sessionStorage), desktop-sized unless told. */
  open(path?: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** The HTTP API as another client (curl, the CLI) sees it. */
  api(path: string, init?: { method?: string; json?: unknown }): Promise<{ status: number; json: unknown }>;
  /** Starts `agentd serve` again on the same port and data dir (after `server.stop()`). */
  restartServer(): Promise<void>;
  /** JavaScript errors and failed console messages of every page, to explain a failure. */
  pageErrors: string[];
  cleanup(): Promise<void>;
}

export interface DashboardHarnessOptions {
  script: Script;
  /** Bearer tokens the server requires (AGENTD_TOKENS). @default none */
  tokens?: string[];
}

export function dashboardBuilt(): boolean {
  return existsSync(join(repoRoot, 'dist', 'web', 'index.html'));
}

async function startServe(options: {
  dataDir: string;
  env: Env;
  port: number;
  track: (child: ChildProcess) => void;
}): Promise<DashboardServer> {
  const child = spawnCli(
    ['serve', '--port', String(options.port), '--data-dir', options.dataDir],
    options.env,
  );
  options.track(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const out = linesOf(child);
  const line = await waitFor(() => out.lines.find((each) => each.includes('listening on')), {
    what: 'agentd serve to listen',
  }).catch((error: Error) => {
    throw new Error(`${error.message}; stderr: ${stderr}`);
  });
  const url = /listening on (http:\/\/\S+)/.exec(line)![1]!;
  return {
    url,
    port: Number(new URL(url).port),
    async stop() {
      killGroup(child.pid, 'SIGTERM');
      await out.closed;
    },
  };
}

export async function createDashboardHarness(options: DashboardHarnessOptions): Promise<DashboardHarness> {
  if (!dashboardBuilt()) throw new Error('the dashboard is not built: run `npm run build` first');
  const root = mkdtempSync(join(tmpdir(), 'agentd-dashboard-'));
  const dataDir = join(root, 'data');
  const cwd = join(root, 'work');
  const profile = join(root, 'chromium-profile');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(profile, { recursive: true });
  const model = await startScriptedModel({ script: options.script });
  const env = isolatedEnv(root, {
    ...model.env(),
    // Text deltas are journaled, so the dashboard can show a reply as it streams.
    CLAUDE_STREAMING: '1',
    ...(options.tokens ? { AGENTD_TOKENS: options.tokens.join(',') } : {}),
  });
  const children: ChildProcess[] = [];
  const track = (child: ChildProcess) => {
    children.push(child);
  };
  let server = await startServe({ dataDir, env, port: 0, track });
  const browserEnv = isolatedEnv(join(root, 'browser'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    env: browserEnv as Record<string, string>,
    viewport: desktop,
  });
  const pageErrors: string[] = [];
  browser.on('page', (page) => {
    page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
    });
  });
  const harness: DashboardHarness = {
    root,
    dataDir,
    cwd,
    model,
    env,
    get server() {
      return server;
    },
    browser,
    pageErrors,
    async open(path = '/', viewport = desktop) {
      const page = await browser.newPage();
      await page.setViewportSize(viewport);
      await page.goto(`${server.url}${path}`);
      return page;
    },
    async api(path, init = {}) {
      const headers: Record<string, string> = {};
      if (options.tokens?.[0]) headers.authorization = `Bearer ${options.tokens[0]}`;
      if (init.json !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${server.url}${path}`, {
        method: init.method ?? 'GET',
        headers,
        ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : undefined };
    },
    async restartServer() {
      server = await startServe({ dataDir, env, port: server.port, track });
    },
    async cleanup() {
      await browser.close().catch(() => {});
      for (const child of children) killGroup(child.pid);
      await killWorkers(dataDir);
      await model.close();
      // A process on its way out (Chromium's, a worker's) may still create a file for a moment.
      rmSync(root, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  return harness;
}
