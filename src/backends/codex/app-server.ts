import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { version } from '../../version.js';
import { type JsonRpcHandlers, JsonRpcPeer, type RequestId } from './json-rpc.js';
import { clientMethods, type InitializeParams, initializedNotification } from './protocol.js';

export interface AppServerOptions {
  executable: string;
  /** Arguments after `app-server` (the `-c` config overrides). */
  args: string[];
  env: Record<string, string>;
  /** Receives notifications and server requests from the first line on. */
  handlers: Pick<JsonRpcHandlers, 'notification' | 'request'>;
  onStderr?: (line: string) => void;
}

/** How long a closed server may take to go before it is killed. */
const closeGraceMs = 2000;

/**
 * One `codex app-server` child speaking JSON-RPC on its stdio, initialized. It is spawned in the
 * caller's process group (not detached), so that a worker SIGKILLed with its group takes it along;
 * it also exits by itself when its stdin closes, as it does when the worker dies alone.
 */
export class CodexAppServer {
  private readonly peer: JsonRpcPeer;
  /** Resolves once the child has exited (or could not be started). */
  readonly exited: Promise<void>;
  private exitedAlready = false;
  private readonly stderrTail: string[] = [];

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    options: AppServerOptions,
  ) {
    this.peer = new JsonRpcPeer(child.stdout, child.stdin, {
      ...options.handlers,
      malformed: (line) => options.onStderr?.(`codex app-server wrote a non-JSON line: ${line}`),
    });
    createInterface({ input: child.stderr, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
      options.onStderr?.(line);
    });
    this.exited = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        this.peer.end(error);
        this.exitedAlready = true;
        resolve();
      });
      child.once('exit', (code, signal) => {
        const tail = this.stderrTail.join('\n').trim();
        const detail = signal ? `signal ${signal}` : `code ${code ?? 1}`;
        this.peer.end(new Error(`codex app-server exited (${detail})${tail ? `: ${tail}` : ''}`));
        this.exitedAlready = true;
        resolve();
      });
    });
  }

  /** Spawns the server and completes the handshake; rejects with the spawn error (ENOENT …) if it fails. */
  static async start(options: AppServerOptions): Promise<CodexAppServer> {
    const child = spawn(options.executable, ['app-server', ...options.args], {
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const server = new CodexAppServer(child, options);
    const params: InitializeParams = {
      clientInfo: { name: 'agentd', title: 'agentd', version },
      // Stable methods and fields only: the experimental ones may change in any release.
      capabilities: { experimentalApi: false, requestAttestation: false },
    };
    try {
      await server.request(clientMethods.initialize, params);
    } catch (error) {
      server.kill();
      throw error;
    }
    server.peer.notify(initializedNotification);
    return server;
  }

  get alive(): boolean {
    return !this.exitedAlready && this.peer.endedBy === null;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    return this.peer.request<T>(method, params);
  }

  respond(id: RequestId, result: unknown): void {
    this.peer.respond(id, result);
  }

  respondError(id: RequestId, code: number, message: string): void {
    this.peer.respondError(id, code, message);
  }

  /** Closes stdin (the server exits on its own), and kills it if it has not gone shortly after. */
  async close(): Promise<void> {
    if (this.exitedAlready) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), closeGraceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exitedAlready) this.child.kill('SIGKILL');
  }
}
