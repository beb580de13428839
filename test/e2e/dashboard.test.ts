/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
 * `agentd serve`, whose workers run the real SDK and `claude` on the scripted model.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../../src/testing/demo-model.js';
import { type RecordedRequest, type ScriptTurn, toolResults } from '../../src/testing/index.js';
import { createDashboardHarness, type DashboardHarness, desktop, phone } from './dashboard-harness.js';
import { askWhichTurn, runCli, waitFor } from './helpers.js';

/** Long enough to be streamed in many chunks, slowly enough to be seen half-written. */
const streamedReply =
  'Here is a **streamed** answer, long enough to arrive in pieces: one, two, three, four, five, six, seven.';

const xssReply = [
  'Look: <script>window.__xss = "script"</script>',
  '',
  '<img src="x" onerror="window.__xss = \'img\'">',
  '',
  "[a link](javascript:window.__xss='link') and **bold** and `code`",
].join('\n');

function script(request: RecordedRequest): ScriptTurn {
  const results = toolResults(request);
  if (results.length > 0)
    return { text: `tool finished: ${results.map((result) => result.content).join(' | ')}` };
  const said = lastUserText(request);
  const file = /touch (\S+)/.exec(said)?.[1];
  if (file) return { content: [{ type: 'tool_use', name: 'Bash', input: { command: `touch ${file}` } }] };
  if (said.includes('ask me')) return askWhichTurn;
  if (said.includes('stream please')) return { text: streamedReply, chunkSize: 6, chunkDelayMs: 120 };
  if (said.includes('xss please')) return { text: xssReply };
  return { text: `echo: ${said}`, usage: { input_tokens: 1200, output_tokens: 40 } };
}

let harness: DashboardHarness;
const screenshots = process.env.DASHBOARD_SCREENSHOTS;

beforeAll(async () => {
  harness = await createDashboardHarness({ script });
});

afterAll(async () => {
  if (harness && harness.pageErrors.length > 0) console.warn(harness.pageErrors.join('\n'));
  await harness?.cleanup();
});

async function createSession(prompt: string): Promise<string> {
  const created = await harness.api('/v1/sessions', { method: 'POST', json: { prompt, cwd: harness.cwd } });
  expect(created.status).toBe(201);
  return (created.json as { session: { id: string } }).session.id;
}

async function interactions(sessionId: string) {
  const listed = await harness.api(`/v1/interactions?sessionId=${sessionId}`);
  return (listed.json as { interactions: Array<{ id: string; state: string; answer: unknown }> })
    .interactions;
}

async function journal(sessionId: string) {
  const page = await harness.api(`/v1/sessions/${sessionId}/events?after=0&limit=1000`);
  return (page.json as { events: Array<{ cursor: number; type: string; data: Record<string, unknown> }> })
    .events;
}

/** The texts a locator holds, trimmed. */
async function texts(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(selector).allInnerTexts()).map((text) => text.trim());
}

describe('dashboard', () => {
  it('inbox: a new approval appears without a reload; approving it in the browser runs the tool', async () => {
    const page = await harness.open('/');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    const target = join(harness.cwd, 'approved.txt');
    const sessionId = await createSession(`touch ${target}`);

    const card = page.locator(`.group-needs-you [data-session="${sessionId}"] .interaction`);
    await card.waitFor({ timeout: 45_000 });
    expect(await card.locator('.command').textContent()).toContain(`touch ${target}`);
    expect(await page.getByTestId('count-needs-you').textContent()).toBe('1');
    expect(existsSync(target)).toBe(false);

    // Answered, the card may leave at once: the inbox re-reads the server after an answer.
    await card.getByRole('button', { name: 'Approve' }).click();
    await waitFor(() => existsSync(target), { what: 'the approved touch to run', timeoutMs: 45_000 });
    const [interaction] = await interactions(sessionId);
    expect(interaction).toMatchObject({ state: 'answered', answer: { decision: 'approve' } });
    // The row leaves "needs you" once the poll sees the answer.
    await page.locator(`.group-needs-you [data-session="${sessionId}"]`).waitFor({ state: 'detached' });

    await page.locator(`[data-session="${sessionId}"] .session-link`).click();
    await page.locator('.row-assistant', { hasText: 'tool finished' }).waitFor({ timeout: 45_000 });
    const tool = page.locator('.row-tool', { hasText: `touch ${target}` });
    expect(await tool.locator('.tool-status').textContent()).toBe('done');
    expect(await texts(page, '.row-answer')).toEqual([expect.stringContaining('approved (by owner)')]);
    await page.close();
  });

  it('session page: deny with a reason; the agent is told the reason and the tool does not run', async () => {
    const target = join(harness.cwd, 'denied.txt');
    const sessionId = await createSession(`touch ${target}`);
    const page = await harness.open(`/#/sessions/${sessionId}`);
    const card = page.locator('.pending .interaction');
    await card.waitFor({ timeout: 45_000 });
    await card.getByRole('button', { name: 'Deny…' }).click();
    await card.getByLabel('Reason for the agent').fill('not in this directory');
    await card.getByRole('button', { name: 'Deny', exact: true }).click();

    await page.locator('.row-assistant', { hasText: 'tool finished' }).waitFor({ timeout: 45_000 });
    const [interaction] = await interactions(sessionId);
    expect(interaction?.answer).toEqual({ decision: 'deny', reason: 'not in this directory' });
    const told = harness.model.conversationRequests().flatMap(toolResults);
    expect(told.some((result) => result.content.includes('not in this directory'))).toBe(true);
    expect(existsSync(target)).toBe(false);
    await page.close();
  });

  it('an approval answered elsewhere shows who answered it; a second answer is refused', async () => {
    const target = join(harness.cwd, 'elsewhere.txt');
    const sessionId = await createSession(`touch ${target}`);
    const live = await harness.open(`/#/sessions/${sessionId}`);
    await live.locator('.pending .interaction').waitFor({ timeout: 45_000 });
    // A second page whose event reads hang (a bad connection): it does not learn of the answer.
    const stale = await harness.browser.newPage();
    let stuck = true;
    await stale.route(`**/v1/sessions/${sessionId}/events**`, (route) => {
      if (!stuck) void route.continue();
    });
    await stale.goto(`${harness.server.url}/#/sessions/${sessionId}`);
    const staleCard = stale.locator('.pending .interaction');
    await staleCard.waitFor();
    const [pending] = await interactions(sessionId);

    // Another client (curl, the CLI, a colleague's tab) answers first.
    const denied = await harness.api(`/v1/interactions/${pending!.id}/answer`, {
      method: 'POST',
      json: { decision: 'deny', reason: 'done at the terminal' },
    });
    expect(denied.status).toBe(200);

    // The live page says who answered, without a reload, and offers no buttons.
    const liveNotice = live.locator('.pending .interaction .answered-elsewhere');
    await liveNotice.waitFor();
    expect(await liveNotice.textContent()).toContain(
      'Already answered by owner: denied: done at the terminal',
    );
    expect(await live.locator('.pending .interaction button').count()).toBe(0);

    // The stale page still offers Approve; the server refuses it and the page says what won.
    // From here the page's new reads go through (it looks up the answer that won).
    stuck = false;
    await staleCard.getByRole('button', { name: 'Approve' }).click();
    const staleNotice = staleCard.locator('.answered-elsewhere');
    await staleNotice.waitFor();
    expect(await staleNotice.textContent()).toContain('by owner: denied: done at the terminal');
    expect(await staleNotice.textContent()).toContain('409 conflict');
    const [after] = await interactions(sessionId);
    expect(after?.answer).toEqual({ decision: 'deny', reason: 'done at the terminal' });
    expect(existsSync(target)).toBe(false);
    await stale.close();
    await live.close();
  });

  it('question: AskUserQuestion shows its options; the chosen one reaches the agent', async () => {
    const sessionId = await createSession('ask me something');
    const page = await harness.open(`/#/sessions/${sessionId}`);
    const card = page.locator('.pending .interaction-question');
    await card.waitFor({ timeout: 45_000 });
    expect(await card.locator('legend').textContent()).toContain('Which?');
    expect(await texts(page, '.pending .option > span:first-of-type')).toEqual(['A', 'B']);
    await card.getByLabel('B').check();
    await card.getByRole('button', { name: 'Answer' }).click();

    await page.locator('.row-assistant', { hasText: 'tool finished' }).waitFor({ timeout: 45_000 });
    const [interaction] = await interactions(sessionId);
    expect(interaction?.answer).toEqual({ answers: { 'Which?': 'B' } });
    const told = harness.model.conversationRequests().flatMap(toolResults);
    expect(told.some((result) => result.content.includes('B'))).toBe(true);
    await page.close();
  });

  it('composer: a sent message is delivered and its reply is seen streaming, then whole', async () => {
    const sessionId = await createSession('hello');
    const page = await harness.open(`/#/sessions/${sessionId}`);
    await page.locator('.row-assistant', { hasText: 'echo: hello' }).waitFor({ timeout: 45_000 });
    await page.getByLabel('Message').fill('stream please');
    await page.getByLabel('Message').press('Control+Enter');

    const input = page.locator('.row-input', { hasText: 'stream please' });
    await input.waitFor();
    const streaming = page.locator('.row-assistant.streaming');
    await streaming.waitFor({ timeout: 45_000 });
    const partial = ((await streaming.locator('.markdown').textContent()) ?? '').trim();
    expect(partial.length).toBeGreaterThan(0);
    expect(streamedReply.replace(/\*\*/g, '').startsWith(partial.replace(/▍$/, '').slice(0, 10))).toBe(true);

    const whole = page.locator('.row-assistant:not(.streaming)', { hasText: 'seven.' });
    await whole.waitFor({ timeout: 45_000 });
    expect(await whole.locator('strong').textContent()).toBe('streamed');
    await input.locator('.delivery-delivered').waitFor();
    const events = await journal(sessionId);
    const sent = events.find(
      (event) => event.type === 'input.accepted' && event.data.text === 'stream please',
    );
    expect(String(sent?.data.messageId)).toMatch(/^web-/);
    expect(events.filter((event) => event.type === 'agent.text_delta').length).toBeGreaterThan(1);
    // The second turn's row follows its last text by a moment.
    await page.locator('.row-turn').nth(1).waitFor({ timeout: 15_000 });
    expect(await page.locator('.row-turn').count()).toBe(2);
    await page.close();
  });

  it('SSE: the server goes away and comes back; the timeline resumes with no gap and no repeat', async () => {
    const sessionId = await createSession('before the cut');
    const page = await harness.open(`/#/sessions/${sessionId}`);
    await page.locator('.row-assistant', { hasText: 'echo: before the cut' }).waitFor({ timeout: 45_000 });
    await page.getByTestId('stream-state').getByText('live').waitFor();

    await harness.server.stop();
    await page.getByTestId('stream-state').getByText('reconnecting').waitFor();
    // While no server runs, the CLI sends on the same data dir: its worker journals the turn.
    const sent = await runCli(
      ['send', sessionId, 'during the cut', '--data-dir', harness.dataDir],
      harness.env,
    );
    expect(sent.code).toBe(0);
    await waitFor(
      async () =>
        (await harness.model.conversationRequests()).some(
          (request) => lastUserText(request) === 'during the cut',
        ),
      { what: 'the worker to answer while the server is down' },
    );
    await harness.restartServer();

    await page.locator('.row-assistant', { hasText: 'echo: during the cut' }).waitFor({ timeout: 45_000 });
    await page.getByTestId('stream-state').getByText('live').waitFor();
    const events = await journal(sessionId);
    const journalReplies = events
      .filter((event) => event.type === 'agent.message')
      .map((event) => event.data.text);
    const journalInputs = events
      .filter((event) => event.type === 'input.accepted')
      .map((event) => event.data.text);
    expect(await texts(page, '.row-assistant .markdown')).toEqual(journalReplies);
    expect(await texts(page, '.row-input .plain')).toEqual(journalInputs);
    expect(journalInputs).toEqual(['before the cut', 'during the cut']);
    await page.close();
  });

  it('XSS: a reply holding <script>, <img onerror> and a javascript: link runs nothing', async () => {
    const prompt = 'xss please <img src=x onerror="window.__xss=\'title\'">';
    const sessionId = await createSession(prompt);
    const page = await harness.open(`/#/sessions/${sessionId}`);
    const reply = page.locator('.row-assistant', { hasText: 'Look:' });
    await reply.waitFor({ timeout: 45_000 });
    expect(await reply.locator('strong').textContent()).toBe('bold');
    expect(await reply.locator('script, img[onerror], [onerror]').count()).toBe(0);
    const hrefs = await reply
      .locator('a')
      .evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.every((href) => href === null || !href.startsWith('javascript:'))).toBe(true);
    await reply.locator('a', { hasText: 'a link' }).click();
    // The prompt is shown as text, markup and all.
    expect(await page.locator('.session-title').textContent()).toBe(prompt);
    await page.goto(`${harness.server.url}/#/`);
    await page.locator(`[data-session="${sessionId}"] .title`).waitFor();
    expect(await page.locator(`[data-session="${sessionId}"] .title`).textContent()).toBe(prompt);
    expect(await page.locator('.inbox img').count()).toBe(0);
    expect(await page.evaluate<string | undefined>('window.__xss')).toBeUndefined();
    await page.close();
  });

  it('new session form starts a session; Stop and Resume act through the API; roles are listed', async () => {
    const page = await harness.open('/#/new');
    await page.getByLabel('Prompt', { exact: true }).fill('started from the form');
    await page.getByLabel(/Working directory/).fill(harness.cwd);
    await page.getByLabel(/Title/).fill('form session');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/#\/sessions\//);
    const sessionId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    await page
      .locator('.row-assistant .markdown', { hasText: 'echo: started from the form' })
      .waitFor({ timeout: 45_000 });
    expect(await page.locator('.session-title').textContent()).toBe('form session');
    const details = await harness.api(`/v1/sessions/${sessionId}`);
    expect((details.json as { session: { cwd: string; title: string } }).session).toMatchObject({
      cwd: harness.cwd,
      title: 'form session',
    });

    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByTestId('session-state').getByText('no worker').waitFor({ timeout: 45_000 });
    expect(await page.getByRole('button', { name: 'Resume' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.row-status', { hasText: 'worker started' }).nth(1).waitFor({ timeout: 45_000 });
    const executions = await harness.api(`/v1/sessions/${sessionId}/executions`);
    const states = (executions.json as { executions: Array<{ state: string }> }).executions.map(
      (each) => each.state,
    );
    expect(states).toHaveLength(2);
    expect(states).toContain('stopped');

    await page.getByRole('link', { name: 'Roles' }).click();
    const role = page.locator('.catalog-row', { hasText: 'default' });
    await role.waitFor();
    await role.getByRole('link').click();
    await page.locator('pre.json').waitFor();
    expect(await page.locator('pre.json').textContent()).toContain('"name": "default"');
    await page.close();
  });

  it('phone width: the inbox and a session page fit 390 px and work with the keyboard', async () => {
    const sessionId = await createSession('hello from a phone');
    const page = await harness.open(`/#/sessions/${sessionId}`, phone);
    await page
      .locator('.row-assistant', { hasText: 'echo: hello from a phone' })
      .waitFor({ timeout: 45_000 });
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    // Keyboard only: focus the composer, type, send.
    await page.getByLabel('Message').focus();
    await page.keyboard.type('typed on a phone');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Send');
    await page.keyboard.press('Enter');
    await page.locator('.row-assistant', { hasText: 'echo: typed on a phone' }).waitFor({ timeout: 45_000 });
    if (screenshots) await page.screenshot({ path: join(screenshots, 'dashboard-session-phone.png') });
    await page.goto(`${harness.server.url}/#/`);
    await page.locator(`[data-session="${sessionId}"]`).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    if (screenshots) await page.screenshot({ path: join(screenshots, 'dashboard-inbox-phone.png') });
    await page.close();
  });

  it('screenshots at desktop width: an inbox with a pending approval, and a session page', async () => {
    const target = join(harness.cwd, 'screenshot.txt');
    const sessionId = await createSession(`touch ${target}`);
    const page = await harness.open('/', desktop);
    await page
      .locator(`.group-needs-you [data-session="${sessionId}"] .interaction`)
      .waitFor({ timeout: 45_000 });
    expect(Number(await page.getByTestId('count-needs-you').textContent())).toBeGreaterThanOrEqual(1);
    if (screenshots) {
      mkdirSync(screenshots, { recursive: true });
      await page.screenshot({ path: join(screenshots, 'dashboard-inbox-desktop.png') });
    }
    await page.goto(`${harness.server.url}/#/sessions/${sessionId}`);
    await page.locator('.pending .interaction').waitFor();
    if (screenshots) await page.screenshot({ path: join(screenshots, 'dashboard-session-desktop.png') });
    await page.close();
  });
});
