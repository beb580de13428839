import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HandoffMessage } from '../journal/handoff.js';
import type { InputRecord } from '../store/store.js';
import { HandoffClient } from './handoff-client.js';

const message = (messageId: string): HandoffMessage => ({
  sessionId: 's1',
  executionId: 'e1',
  messageId,
  text: `text of ${messageId}`,
});

const inputOf = (messageId: string) => ({ id: `input-${messageId}`, messageId }) as unknown as InputRecord;

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const each of cleanup.splice(0).reverse()) each();
});

/** A socket server answering each line with `answer(line)` (or never, when it returns undefined). */
async function serve(
  answer: (line: string) => string | undefined,
): Promise<{ path: string; connections: number; close(): void }> {
  const directory = mkdtempSync(join(tmpdir(), 'agentd-handoff-'));
  const path = join(directory, 'e1.sock');
  const sockets: Socket[] = [];
  const state = { path, connections: 0, close() {} };
  const server: Server = createServer((socket) => {
    state.connections++;
    sockets.push(socket);
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const reply = answer(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (reply !== undefined) socket.write(`${reply}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  state.close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    rmSync(directory, { recursive: true, force: true });
  };
  cleanup.push(() => state.close());
  return state;
}

describe('HandoffClient', () => {
  it('keeps one connection and matches the replies to the messages in order', async () => {
    const server = await serve((line) => {
      const { messageId } = JSON.parse(line) as HandoffMessage;
      return JSON.stringify(
        messageId === 'refused' ? { refused: 'another execution' } : { input: inputOf(messageId) },
      );
    });
    const client = new HandoffClient({ timeoutMs: 5000, slowForMs: 30_000 });
    cleanup.push(() => client.close());
    const replies = await Promise.all([
      client.handOff(server.path, message('m-1')),
      client.handOff(server.path, message('refused')),
      client.handOff(server.path, message('m-3')),
    ]);
    expect(replies.map((input) => input?.messageId ?? null)).toEqual(['m-1', null, 'm-3']);
    expect((await client.handOff(server.path, message('m-4')))?.messageId).toBe('m-4');
    expect(server.connections).toBe(1);
  });

  it('a worker that does not answer in time: null, and it is passed over for a while', async () => {
    const server = await serve(() => undefined);
    const client = new HandoffClient({ timeoutMs: 100, slowForMs: 30_000 });
    cleanup.push(() => client.close());
    const started = Date.now();
    expect(await client.handOff(server.path, message('m-1'))).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    const next = Date.now();
    expect(await client.handOff(server.path, message('m-2'))).toBeNull();
    expect(Date.now() - next).toBeLessThan(50);
    expect(server.connections).toBe(1);
  });

  it('a reply that is not JSON, no socket at all, or a worker gone mid-wait: null', async () => {
    const client = new HandoffClient({ timeoutMs: 5000, slowForMs: 0 });
    cleanup.push(() => client.close());
    const garbled = await serve(() => 'not json');
    expect(await client.handOff(garbled.path, message('m-1'))).toBeNull();
    expect(await client.handOff(join(tmpdir(), 'agentd-no-such-socket.sock'), message('m-2'))).toBeNull();
    // The worker exits with the message read and not answered.
    const exiting = await serve(() => {
      exiting.close();
      return undefined;
    });
    expect(await client.handOff(exiting.path, message('m-3'))).toBeNull();
  });
});
