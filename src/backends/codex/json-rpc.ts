import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export type RequestId = string | number;

/** An error the peer answered a request with. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export interface JsonRpcHandlers {
  /** A notification from the peer. */
  notification(method: string, params: unknown): void;
  /** A request from the peer: answer it with `respond` or `respondError`, now or later. */
  request(id: RequestId, method: string, params: unknown): void;
  /** A line that is no JSON-RPC message. */
  malformed?(line: string): void;
}

interface Pending {
  method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * JSON-RPC over a pair of streams, one message per line (what `codex app-server` speaks on its
 * stdio; like it, without the `jsonrpc` member). Requests get ids of their own; every request
 * still open when the connection ends is rejected with the reason.
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private ended: Error | null = null;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly handlers: JsonRpcHandlers,
  ) {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => this.receive(line));
    lines.on('close', () => this.end(new Error('the connection closed')));
    output.on('error', (error: Error) => this.end(error));
  }

  /** Why the connection ended, once it has. */
  get endedBy(): Error | null {
    return this.ended;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (result: unknown) => void, reject });
      this.send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  respond(id: RequestId, result: unknown): void {
    this.send({ id, result });
  }

  respondError(id: RequestId, code: number, message: string): void {
    this.send({ id, error: { code, message } });
  }

  /** Ends the connection: open requests are rejected with `reason`. Later calls change nothing. */
  end(reason: Error): void {
    if (this.ended) return;
    this.ended = reason;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(reason);
    }
  }

  private send(message: Record<string, unknown>): void {
    if (this.ended) return;
    this.output.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let message: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(line);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      message = parsed as Record<string, unknown>;
    } catch {
      this.handlers.malformed?.(line);
      return;
    }
    const id = message.id as RequestId | undefined;
    const method = message.method;
    if (typeof method === 'string') {
      if (id === undefined || id === null) this.handlers.notification(method, message.params);
      else this.handlers.request(id, method, message.params);
      return;
    }
    if (id === undefined || id === null) {
      this.handlers.malformed?.(line);
      return;
    }
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    const error = message.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error) {
      pending.reject(
        new JsonRpcError(
          typeof error.code === 'number' ? error.code : -32603,
          `${pending.method}: ${typeof error.message === 'string' ? error.message : 'failed'}`,
          error.data,
        ),
      );
    } else pending.resolve(message.result);
  }
}
