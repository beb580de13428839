import { type Command, InvalidArgumentError } from 'commander';
import { version } from '../../version.js';
import type { CliContext } from '../context.js';
import { storeOptionHelp } from '../runtime-context.js';

interface ServeFlags {
  host: string;
  port: number;
  dataDir?: string;
  store?: string;
  config?: string;
  offline?: boolean;
  insecure?: boolean;
  publicUrl?: string;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError('expected a port from 0 to 65535 (0 picks a free one)');
  return port;
}

/** Resolves on the first SIGINT or SIGTERM. */
function shutdownSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export function registerServe(program: Command, context: CliContext): void {
  program
    .command('serve')
    .description(
      'serve the HTTP API and A2A: sessions, messages, event streams, approvals, health and metrics',
    )
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', parsePort, 8080)
    .option('--data-dir <dir>', 'data directory (default: $AGENTD_DATA_DIR or ~/.local/state/agentd)')
    .option('--store <url>', storeOptionHelp)
    .option('--config <file>', 'JSON config file: tokens, maxLiveWorkers, corsOrigins, claude, agentCard')
    .option('--offline', 'without credentials, answer with the built-in scripted demo model')
    .option('--insecure', 'allow a non-loopback --host without bearer tokens')
    .option(
      '--public-url <url>',
      'the base URL the A2A agent card advertises (default: the address it is asked at)',
    )
    .action(async (flags: ServeFlags) => {
      const err = (line: string) => context.stderr.write(`${line}\n`);
      // The server's modules load only when serving, so other commands start quickly.
      const [{ startServer }, { loadServerConfig }, { modelModeDescriptions }] = await Promise.all([
        import('../../server/serve.js'),
        import('../../server/server-config.js'),
        import('../../server/model-mode.js'),
      ]);
      const server = await startServer({
        host: flags.host,
        port: flags.port,
        env: flags.store ? { ...context.env, AGENTD_STORE_URL: flags.store } : context.env,
        config: flags.config ? loadServerConfig(flags.config) : {},
        ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
        insecure: flags.insecure ?? false,
        offline: flags.offline ?? false,
        log: err,
        ...(flags.publicUrl ? { publicUrl: flags.publicUrl } : {}),
      });
      const out = (line: string) => context.stdout.write(`${line}\n`);
      out(`agentd ${version} listening on ${server.url}`);
      out(`dashboard: ${server.url}/`);
      out(`model: ${modelModeDescriptions[server.modelMode]}`);
      out(`data: ${server.dataDir}`);
      out(`store: ${server.runtime.store.kind}`);
      out(
        `a2a: ${server.url}/ (JSON-RPC), ${server.url}/a2a/v1 (HTTP+JSON), card at /.well-known/agent-card.json`,
      );
      out(`auth: ${server.authenticated ? 'bearer tokens required' : 'none (no tokens configured)'}`);
      for (const notice of server.notices) out(notice);
      const signal = await shutdownSignal();
      err(`${signal}: closing the server; workers keep running`);
      await server.close();
    });
}
