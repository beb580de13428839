import { createConnection } from 'node:net';
import type { HandoffMessage, HandoffReply } from '../journal/handoff.js';
import type { InputRecord } from '../store/store.js';

/**
 * Sends one handoff message to a worker's socket (decision 0132) and reads its reply: the input as
 * the worker journaled it, or null when the worker refused it, is not there, or did not answer
 * within `timeoutMs`. Null never means the input was not journaled: the caller journals it under the
 * same message id, which is the same input if the worker did after all.
 */
export function handOffTo(
  path: string,
  message: HandoffMessage,
  timeoutMs: number,
): Promise<InputRecord | null> {
  return new Promise((resolve) => {
    let buffered = '';
    const socket = createConnection(path);
    const done = (input: InputRecord | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(input);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('error', () => done(null));
    socket.on('close', () => done(null));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end < 0) return;
      try {
        const reply = JSON.parse(buffered.slice(0, end)) as HandoffReply;
        done('input' in reply ? reply.input : null);
      } catch {
        done(null);
      }
    });
    socket.write(`${JSON.stringify(message)}\n`);
  });
}
