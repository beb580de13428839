import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors/index.js';
import type { HandoffMessage } from '../journal/handoff.js';
import type { InputRecord } from '../store/store.js';
import { listenForHandoffs } from './handoff-server.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const each of cleanup.splice(0).reverse()) each();
});

/** Lines written on one connection, and the reply lines read back. */
async function exchange(path: string, lines: string[], replies: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const read = buffered.split('\n').slice(0, -1);
      if (read.length < replies) return;
      socket.destroy();
      resolve(read.map((line) => JSON.parse(line)));
    });
    socket.write(lines.map((line) => `${line}\n`).join(''));
  });
}

async function listening(handOff: (message: HandoffMessage) => Promise<InputRecord>) {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-handoff-'));
  cleanup.push(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'run', 'e1.sock');
  const logged: string[] = [];
  const server = await listenForHandoffs({
    path,
    sessionId: 's1',
    executionId: 'e1',
    handOff,
    log: (line) => logged.push(line),
  });
  if (!server) throw new Error(`not listening: ${logged.join('; ')}`);
  cleanup.push(() => server.close());
  return { path, server, directory };
}

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({ sessionId: 's1', executionId: 'e1', messageId: 'm', text: 'hello', ...fields });

describe('listenForHandoffs', () => {
  it('answers the lines of a connection in their order; refuses what is not for it and journals nothing', async () => {
    const handed: HandoffMessage[] = [];
    const { path } = await listening(async (message) => {
      handed.push(message);
      // The first takes longest: its reply still comes first, and the second waits for it.
      if (message.messageId === 'm-1') await sleep(50);
      return { id: `input-${message.messageId}`, messageId: message.messageId } as unknown as InputRecord;
    });
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    const replies = await exchange(
      path,
      [
        line({ messageId: 'm-1', extra: 'dropped' }),
        'not json',
        line({ executionId: 'e2' }),
        line({ sessionId: 's2' }),
        line({ text: 42 }),
        line({ messageId: 'm-2', command: true }),
      ],
      6,
    );
    expect(replies).toEqual([
      { input: { id: 'input-m-1', messageId: 'm-1' } },
      { refused: 'not a handoff message' },
      { refused: 'another execution' },
      { refused: 'another execution' },
      { refused: 'not a handoff message' },
      { input: { id: 'input-m-2', messageId: 'm-2' } },
    ]);
    // Only the fields of a message reach the worker.
    expect(handed).toEqual([
      { sessionId: 's1', executionId: 'e1', messageId: 'm-1', text: 'hello' },
      { sessionId: 's1', executionId: 'e1', messageId: 'm-2', text: 'hello', command: true },
    ]);
  });

  it("the store's refusal is the reply (the runtime meets it again when it journals the input itself)", async () => {
    const { path } = await listening(async () => {
      throw new ConflictError('message id m was already used with other text');
    });
    expect(await exchange(path, [line({})], 1)).toEqual([{ refused: 'conflict' }]);
  });

  it('a stale socket of a killed worker is replaced; close removes the socket', async () => {
    const first = await listening(async () => ({}) as InputRecord);
    // The same path again, as a worker restarted under the same name would find it.
    const second = await listenForHandoffs({
      path: first.path,
      sessionId: 's1',
      executionId: 'e1',
      handOff: async (message) => ({ messageId: message.messageId }) as unknown as InputRecord,
      log: () => {},
    });
    expect(second).not.toBeNull();
    expect(await exchange(first.path, [line({ messageId: 'again' })], 1)).toEqual([
      { input: { messageId: 'again' } },
    ]);
    second?.close();
    expect(existsSync(first.path)).toBe(false);
  });
});
