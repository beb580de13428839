/**
 * A child process for the multi-process tests of the SQLite store: opens the file, says `ready`,
 * waits for `go` on stdin so all children start together, then races and prints its results as JSON.
 *
 * Usage: node --import tsx store-race-child.ts PATH lease|append|role NAME COUNT [OFFSET]
 * In lease mode the child tries sessions race-OFFSET, race-OFFSET+1, ... wrapping around, so racers
 * starting at different offsets each win some sessions and all of them contend for every session.
 * In role mode the child updates role `race/reviewer` COUNT times and prints the versions it wrote.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteStore } from '../sqlite-store.js';

const [path, mode, name, countText, offsetText] = process.argv.slice(2);
if (path === undefined || name === undefined || (mode !== 'lease' && mode !== 'append' && mode !== 'role')) {
  throw new Error('usage: store-race-child.ts PATH lease|append|role NAME COUNT');
}
const count = Number(countText);
const offset = Number(offsetText ?? '0');
const store = SqliteStore.open({ path });
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));

const results: Array<number | null> = [];
for (let index = 0; index < count; index += 1) {
  // A real worker does other work between writes. Without this pause the first process to start
  // would take the write lock back-to-back and starve the others in SQLite's busy handler, so the
  // processes would run one after another instead of racing.
  await sleep(1);
  if (mode === 'lease') {
    const lease = await store.acquireLease({
      sessionId: `race-${(index + offset) % count}`,
      owner: name,
      ttlMs: 600_000,
      pid: process.pid,
      processStartTime: null,
      now: Date.now(),
    });
    results[(index + offset) % count] = lease?.epoch ?? null;
  } else if (mode === 'role') {
    const role = await store.updateRole({
      organization: 'race',
      name: 'reviewer',
      patch: { label: `${name}-${index}` },
      now: Date.now(),
    });
    results.push(role.version);
  } else {
    const [event] = await store.appendEvents('race-0', [{ type: 'race', data: { name, index } }], {
      now: Date.now(),
    });
    results.push(event?.cursor ?? null);
  }
}
await store.close();
process.stdout.write(`${JSON.stringify(results)}\n`);
process.stdin.destroy();
