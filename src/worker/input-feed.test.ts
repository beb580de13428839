import { describe, expect, it } from 'vitest';
import { journalInput } from '../journal/journal-input.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { ExecutionJournal } from './execution-journal.js';
import { InputFeed } from './input-feed.js';

/** A session with a leased, idle execution, and a feed over it whose naps end only when woken. */
async function feedOverStore() {
  const store = SqliteStore.open({ path: ':memory:' });
  const { session } = await store.createSession({
    id: 's1',
    provider: 'anthropic',
    cwd: '/',
    config: {},
    now: 1,
  });
  const execution = await store.createExecution({ id: 'e1', sessionId: session.id, now: 1 });
  const lease = await store.acquireLease({
    sessionId: session.id,
    owner: execution.id,
    ttlMs: 60_000,
    pid: null,
    processStartTime: null,
    now: 1,
  });
  const epoch = lease?.epoch ?? 0;
  await store.updateExecution(execution.id, { state: 'idle', epoch, now: 1 });
  const journal = new ExecutionJournal({
    store,
    sessionId: session.id,
    executionId: execution.id,
    epoch: () => epoch,
    log: () => {},
  });
  /** What happened, in order: `gather`, `nap`, or the text of an input the feed gave. */
  const log: string[] = [];
  /** What the next gathers journal (a monitor's output), one entry per gather. */
  const gathered: Array<string | undefined> = [];
  let endNap: (() => void) | undefined;
  const feed = new InputFeed({
    store,
    sessionId: session.id,
    executionId: execution.id,
    journal,
    idleTimeoutMs: 0,
    nap: () => {
      log.push('nap');
      return new Promise<void>((resolve) => {
        endNap = resolve;
      });
    },
    wake: () => endNap?.(),
    epoch: () => epoch,
    busy: () => false,
    stopping: () => undefined,
    stop: () => {},
    gather: async () => {
      log.push('gather');
      const text = gathered.shift();
      if (text) await journalInput(store, session.id, { text });
    },
  });
  const send = (text: string) => journalInput(store, session.id, { text });
  const wake = () => endNap?.();
  return { store, feed, log, gathered, send, wake, sessionId: session.id, executionId: execution.id };
}

describe('InputFeed', () => {
  it('woken for an input, dispatches it before gathering; what the gather journals comes after its turn', async () => {
    const { feed, log, gathered, send, wake } = await feedOverStore();
    const inputs = feed.inputs();
    const first = inputs.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['gather', 'nap']);
    await send('hello');
    gathered.push('monitor output');
    wake();
    log.push((await first).value?.text ?? 'none');
    expect(log).toEqual(['gather', 'nap', 'hello']);
    // The turn over, the next look gathers first: the monitor's output is the next input.
    const next = await inputs.next();
    log.push(next.value?.text ?? 'none');
    expect(log).toEqual(['gather', 'nap', 'hello', 'gather', 'monitor output']);
    await inputs.return(undefined);
  });

  it('gathers before every input of a queue, so a stream of inputs does not hold a monitor back', async () => {
    const { feed, log, gathered, send } = await feedOverStore();
    await send('one');
    await send('two');
    gathered.push(undefined, 'monitor output');
    const inputs = feed.inputs();
    for (let turn = 0; turn < 3; turn++) log.push((await inputs.next()).value?.text ?? 'none');
    expect(log).toEqual(['gather', 'one', 'gather', 'two', 'gather', 'monitor output']);
    await inputs.return(undefined);
  });

  it('after a wake with nothing waiting, gathers and dispatches what it journaled', async () => {
    const { feed, log, gathered, wake } = await feedOverStore();
    const inputs = feed.inputs();
    const first = inputs.next();
    await new Promise((resolve) => setImmediate(resolve));
    gathered.push('monitor output');
    wake();
    log.push((await first).value?.text ?? 'none');
    expect(log).toEqual(['gather', 'nap', 'gather', 'monitor output']);
    await inputs.return(undefined);
  });
  it('an input handed to it while it naps starts its turn in one transaction, and is the next input', async () => {
    const { store, feed, log, sessionId, executionId } = await feedOverStore();
    const inputs = feed.inputs();
    const first = inputs.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['gather', 'nap']);
    const handed = await feed.handOff({ messageId: 'm-1', text: 'handed' });
    expect(handed).toMatchObject({ state: 'dispatching', executionId });
    expect((await store.getExecution(executionId))?.state).toBe('running');
    log.push((await first).value?.text ?? 'none');
    // Taken without another look at the store, and never dispatched twice.
    expect(log).toEqual(['gather', 'nap', 'handed']);
    expect((await store.listInputs(sessionId)).map((input) => input.state)).toEqual(['dispatching']);
    await inputs.return(undefined);
  });

  it('an input handed to it mid-turn is only accepted, and comes after the turn', async () => {
    const { feed, log, send } = await feedOverStore();
    await send('one');
    const inputs = feed.inputs();
    log.push((await inputs.next()).value?.text ?? 'none');
    const handed = await feed.handOff({ messageId: 'm-2', text: 'two' });
    expect(handed.state).toBe('accepted');
    log.push((await inputs.next()).value?.text ?? 'none');
    expect(log).toEqual(['gather', 'one', 'gather', 'two']);
    await inputs.return(undefined);
  });
});
