/**
 * A session with 10,000 journal events in the dashboard: it opens at its end and puts only the rows
 * on screen in the DOM. The long journal is written through the store's own append (what workers
 * use), so the page reads a journal exactly like one a long-running agent leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/index.js';
import { journalEntry } from '../../src/journal/journal-event.js';
import type { NewEvent } from '../../src/store/store.js';
import { createDashboardHarness, type DashboardHarness } from './dashboard-harness.js';

let harness: DashboardHarness;

beforeAll(async () => {
  harness = await createDashboardHarness({ script: [] });
});

afterAll(async () => {
  await harness?.cleanup();
});

/** Turn `index`: a message, a tool call with its result, the reply and the turn's usage: 5 events. */
function turn(index: number): NewEvent[] {
  const toolUseId = `tool-${index}`;
  return [
    journalEntry({
      type: 'input.accepted',
      inputId: `input-${index}`,
      messageId: `m-${index}`,
      text: `question ${index}`,
    }),
    journalEntry({
      type: 'agent.tool_call',
      toolUseId,
      name: 'Bash',
      input: { command: `ls part-${index}` },
      detail: `Bash: ls part-${index}`,
      parentToolUseId: null,
    }),
    journalEntry({ type: 'agent.tool_result', toolUseId, content: `part-${index}/file.txt`, isError: false }),
    journalEntry({
      type: 'agent.message',
      text: `**answer ${index}**: see \`part-${index}\``,
      messageId: null,
    }),
    journalEntry({
      type: 'agent.turn.completed',
      subtype: 'success',
      isError: false,
      result: null,
      sessionId: 'native',
      usage: { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
      costUsd: 0.0001,
      numTurns: 1,
      durationMs: 900,
      durationApiMs: 800,
      modelUsage: {},
      inputIds: [`input-${index}`],
    }),
  ];
}

describe('dashboard: a long session', () => {
  // Writing 10,000 events and rendering them in a browser on a loaded 2-core machine takes a while.
  it('10,000 events: opens at the end, keeps a few dozen rows in the DOM, scrolls to the start', async () => {
    const runtime = await createRuntime({ dataDir: harness.dataDir, env: harness.env });
    let sessionId: string;
    try {
      const { session } = await runtime.createSession({ cwd: harness.cwd, title: 'a long session' });
      sessionId = session.id;
      for (let batch = 0; batch < 20; batch++) {
        const events = Array.from({ length: 100 }, (_, index) => turn(batch * 100 + index)).flat();
        await runtime.store.appendEvents(sessionId, events, { now: Date.now() });
      }
      expect(await runtime.lastCursor(sessionId)).toBe(10_000);
    } finally {
      await runtime.close();
    }

    const page = await harness.open('/');
    const started = Date.now();
    await page.goto(`${harness.server.url}/#/sessions/${sessionId}`);
    const last = page.locator('.row-assistant .markdown', { hasText: 'answer 1999:' });
    await last.waitFor({ timeout: 60_000 });
    const openedMs = Date.now() - started;
    const rows = await page.locator('.virtual-list-row').count();
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(150);
    expect(await last.locator('strong').textContent()).toBe('answer 1999');

    const list = page.getByRole('log', { name: 'Session timeline' });
    await list.evaluate((element) => {
      element.scrollTop = 0;
    });
    const first = page.locator('.row-input .plain', { hasText: /^question 0$/ });
    await first.waitFor();
    expect(await page.locator('.virtual-list-row').count()).toBeLessThan(150);

    // Rows that arrive while the reader is at the start leave them there.
    const heightBefore = await list.evaluate((element) => element.scrollHeight);
    const writer = await createRuntime({ dataDir: harness.dataDir, env: harness.env });
    try {
      await writer.store.appendEvents(sessionId, [...turn(2000), ...turn(2001)], { now: Date.now() });
    } finally {
      await writer.close();
    }
    await expect
      .poll(() => list.evaluate((element) => element.scrollHeight), { timeout: 30_000 })
      .toBeGreaterThan(heightBefore);
    expect(await list.evaluate((element) => element.scrollTop)).toBe(0);
    expect(await first.isVisible()).toBe(true);
    // 2,000 turns of four rows each (the tool result folds into its call).
    console.info(
      `dashboard: a 10,000-event session showed its last row ${openedMs} ms after navigation; ${rows} rows in the DOM`,
    );
    await page.close();
  }, 180_000);
});
