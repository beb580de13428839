/**
 * The dashboard on a token-protected `agentd serve`, in a real browser: it asks for the token,
 * keeps it in the tab's sessionStorage (no cookie), and says so when the server refuses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardHarness, type DashboardHarness } from './dashboard-harness.js';

const token = 'dashboard-token-5c2e8a91d7';
let harness: DashboardHarness;

beforeAll(async () => {
  harness = await createDashboardHarness({ script: () => ({ text: 'protected hello' }), tokens: [token] });
});

afterAll(async () => {
  await harness?.cleanup();
});

describe('dashboard with bearer tokens', () => {
  it('asks for a token, refuses a wrong one, and with the right one shows the sessions', async () => {
    const created = await harness.api('/v1/sessions', {
      method: 'POST',
      json: { prompt: 'a protected session', cwd: harness.cwd },
    });
    expect(created.status).toBe(201);
    const sessionId = (created.json as { session: { id: string } }).session.id;

    const page = await harness.open('/');
    // The page itself is public; the API behind it is not.
    const anonymous = await page.evaluate<{ status: number; code: string }>(
      "fetch('/v1/sessions').then(async (response) => ({ status: response.status, code: (await response.json()).error.code }))",
    );
    expect(anonymous).toEqual({ status: 401, code: 'unauthorized' });
    await page.getByRole('heading', { name: 'This agentd server wants a token' }).waitFor();
    expect(await page.locator('.session-row').count()).toBe(0);

    await page.getByLabel('Bearer token').fill('not-the-token');
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('alert').getByText('The server refused the token').waitFor();
    expect(await page.locator('.session-row').count()).toBe(0);

    await page.getByLabel('Bearer token').fill(token);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator(`[data-session="${sessionId}"]`).waitFor();
    expect(await page.locator(`[data-session="${sessionId}"] .title`).textContent()).toBe(
      'a protected session',
    );
    expect(await page.evaluate<string | null>("sessionStorage.getItem('agentd.token')")).toBe(token);
    expect(await page.evaluate<string>('document.cookie')).toBe('');
    const cookies = await harness.browser.cookies();
    expect(cookies).toEqual([]);

    // The timeline's event stream carries the token too (EventSource could not).
    await page.locator(`[data-session="${sessionId}"] .session-link`).click();
    await page
      .locator('.row-assistant .markdown', { hasText: 'protected hello' })
      .waitFor({ timeout: 45_000 });
    await page.getByTestId('stream-state').getByText('live').waitFor();

    // Another tab has its own sessionStorage: it asks again.
    const other = await harness.open('/');
    await other.getByRole('heading', { name: 'This agentd server wants a token' }).waitFor();
    await other.close();
    await page.close();
  });
});
