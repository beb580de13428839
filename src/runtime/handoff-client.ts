import { createConnection, type Socket } from 'node:net';
import type { HandoffMessage, HandoffReply } from '../journal/handoff.js';
import type { InputRecord } from '../store/store.js';

interface Connection {
  socket: Socket;
  buffered: string;
  /** Replies come back in the order of the messages: the first waiter gets the next line. */
  waiting: Array<(input: InputRecord | null) => void>;
}

/**
 * The runtime's side of the handoff (decision 0132): one connection per worker socket, kept open
 * between sends so that a handoff is one write and one read, not a connect first. A message gets
 * the input as the worker journaled it, or null when the worker refused it, is not there, or did
 * not answer within the timeout (the connection is then dropped). Null never means the input was
 * not journaled: the caller journals it under the same message id, the same input if the worker did.
 */
export class HandoffClient {
  private readonly connections = new Map<string, Connection>();
  /** Workers that let a handoff time out, and until when none is handed to them (ms since epoch). */
  private readonly slowUntil = new Map<string, number>();

  constructor(private readonly options: { timeoutMs: number; slowForMs: number }) {}

  /**
   * Hands `message` to the worker listening on `path`. A worker that did not answer in time is
   * passed over for `slowForMs`: a frozen or overloaded worker costs one send the timeout, not each.
   */
  handOff(path: string, message: HandoffMessage): Promise<InputRecord | null> {
    if ((this.slowUntil.get(path) ?? 0) > Date.now()) return Promise.resolve(null);
    this.slowUntil.delete(path);
    const connection = this.connections.get(path) ?? this.connect(path);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.slowUntil.set(path, Date.now() + this.options.slowForMs);
        this.drop(path, connection);
      }, this.options.timeoutMs);
      connection.waiting.push((input) => {
        clearTimeout(timer);
        resolve(input);
      });
      connection.socket.write(`${JSON.stringify(message)}\n`);
    });
  }

  close(): void {
    for (const [path, connection] of this.connections) this.drop(path, connection);
  }

  private connect(path: string): Connection {
    const socket = createConnection(path);
    const connection: Connection = { socket, buffered: '', waiting: [] };
    this.connections.set(path, connection);
    // An open connection never keeps the runtime's process up.
    socket.unref();
    socket.setEncoding('utf8');
    socket.on('error', () => this.drop(path, connection));
    socket.on('close', () => this.drop(path, connection));
    socket.on('data', (chunk: string) => {
      connection.buffered += chunk;
      for (let end = connection.buffered.indexOf('\n'); end >= 0; end = connection.buffered.indexOf('\n')) {
        const line = connection.buffered.slice(0, end);
        connection.buffered = connection.buffered.slice(end + 1);
        connection.waiting.shift()?.(inputOf(line));
      }
    });
    return connection;
  }

  /** Ends a connection: whoever waits on it gets null and journals the input itself. */
  private drop(path: string, connection: Connection): void {
    if (this.connections.get(path) === connection) this.connections.delete(path);
    connection.socket.destroy();
    for (const resolve of connection.waiting.splice(0)) resolve(null);
  }
}

function inputOf(line: string): InputRecord | null {
  try {
    const reply = JSON.parse(line) as HandoffReply;
    return 'input' in reply ? reply.input : null;
  } catch {
    return null;
  }
}
