import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { AgentdError } from '../errors/index.js';
import { type HandoffMessage, type HandoffReply, parseHandoffMessage } from '../journal/handoff.js';
import type { InputRecord } from '../store/store.js';

/** A message is a line of JSON; a longer one than this is not from the runtime. */
const maxMessageBytes = 4 * 1024 * 1024;

/**
 * Listens on the worker's handoff socket (decision 0132) in the data directory, which only its
 * user can enter. Each line on a connection is a message and gets one reply line, in order; a
 * message for another session or execution, or one that cannot be read, is refused and journals
 * nothing. Resolves once it listens, or with null when it cannot (the runtime then journals inputs
 * itself).
 */
export async function listenForHandoffs(options: {
  path: string;
  sessionId: string;
  executionId: string;
  handOff: (message: HandoffMessage) => Promise<InputRecord>;
  log: (line: string) => void;
}): Promise<{ close(): void } | null> {
  const { path, log } = options;
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    // The runtime keeps its connection open between sends; it never keeps the worker up.
    socket.unref();
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    let buffered = '';
    // One line at a time, each answered before the next is journaled: inputs keep the order they were
    // sent in, and the runtime matches the replies to its messages by that order.
    let replies = Promise.resolve();
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        replies = replies.then(async () => {
          const answer = await reply(line);
          if (!socket.destroyed) socket.write(`${JSON.stringify(answer)}\n`);
        });
      }
      if (buffered.length > maxMessageBytes) socket.destroy();
    });
  });
  const reply = async (line: string): Promise<HandoffReply> => {
    let message: HandoffMessage | null = null;
    try {
      message = parseHandoffMessage(JSON.parse(line));
    } catch {
      // Refused below.
    }
    if (!message) return { refused: 'not a handoff message' };
    if (message.sessionId !== options.sessionId || message.executionId !== options.executionId)
      return { refused: 'another execution' };
    try {
      return { input: await options.handOff(message) };
    } catch (error) {
      // The runtime journals the input itself, and meets the same error there (a conflict).
      if (!(error instanceof AgentdError)) log(`handoff: ${error instanceof Error ? error.message : error}`);
      return { refused: error instanceof AgentdError ? error.code : 'failed' };
    }
  };
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    rmSync(path, { force: true });
    await listen(server, path);
  } catch (error) {
    log(`handoff socket: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  }
  server.unref();
  return {
    close() {
      server.close();
      for (const socket of connections) socket.destroy();
      rmSync(path, { force: true });
    },
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
