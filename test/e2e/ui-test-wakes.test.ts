import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, it, expect } from 'vitest';
import { accessible, browserSkip, uiForFile, openSignedIn, TAKE_SCREENSHOTS } from '../helpers/browser.js';

/**
 * Test wakes stay out of working rooms (docs/wakes.md "Test wakes", docs/ui.md "Layout of `src-renderer/src`", the Test wakes panel): the
 * connect dialog's live test mentions the agent in the owner's private Test wakes room, not in
 * the room the dialog just put it in; that room is not in the room list and never counts as
 * unread; Settings lists its wakes with their outcome, live.
 */
const skip = browserSkip();
// docs/ui.md's screenshots of these places are rewritten only when asked (UPDATE_DOCS_IMG=1), as in ui-second-pass.test.ts.
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const docShot = async (page: Page, name: string) => {
  if (process.env.UPDATE_DOCS_IMG === '1' || TAKE_SCREENSHOTS) {
    mkdirSync(DOCS_IMG, { recursive: true });
    await page.screenshot({ path: join(DOCS_IMG, `${name}-1280.png`) });
  }
};
/** A runner that reads its wake and ends well: enough for a handled test wake. */
const QUICK = ['-e', 'process.stdin.resume(); process.stdin.on("end", () => process.exit(0));'];

describe.skipIf(!!skip)('UI: test wakes', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });

  it('the connect dialog’s live test lands in Test wakes: Settings shows it, the room list does not, no unread badge', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'welcome', { bypassCSP: true });
    await page.getByLabel('Agent name').fill('Pinger');
    await page.getByLabel('Where it runs').selectOption('codex');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByTestId('connect-command').waitFor();
    const pinger = ((await ui.s.api('GET', '/v1/agents')).body.agents as Array<{ plate: string; name: string; handle: string }>).find((a) => a.name === 'Pinger')!;
    // The host's runner as connect would leave it, here a command that ends well at once.
    expect((await ui.s.api('PUT', `/v1/agents/${pinger.plate}/runners/codex`, { command: process.execPath, args: QUICK })).status).toBe(200);
    await page.getByLabel('New room name').fill('Work room');
    await page.getByRole('button', { name: 'Add to room' }).click();
    await page.getByRole('heading', { name: '4. How should it wake?' }).waitFor();
    // Keep the runner set above (the inbox choice saves none) and send the test.
    await page.getByLabel('When mentioned or given a task').selectOption('__inbox__');
    await page.getByRole('button', { name: 'Send a test mention' }).click();
    await expect.poll(() => page.getByTestId('wake-test').textContent(), { timeout: 30_000 }).toMatch(/^Test wake handled in your Test wakes room \(Settings\)/);

    // Nothing landed in the working room.
    const work = ((await ui.s.api('GET', '/v1/rooms')).body.rooms as Array<{ room_id: string; name: string }>).find((r) => r.name === 'Work room')!;
    expect((await ui.s.api('GET', `/v1/rooms/${work.room_id}/messages`)).body.messages).toEqual([]);
    const test = (await ui.s.api('GET', '/v1/test-wakes')).body as { room_id: string };
    expect((await ui.s.api('GET', `/v1/rooms/${test.room_id}/messages`)).body.messages[0].body).toContain('test wake from the connect dialog');

    // The room list: the working room, not the test room; no unread badge anywhere.
    const rooms = page.getByRole('complementary', { name: 'Rooms' });
    await rooms.getByRole('link', { name: /Work room/ }).waitFor();
    expect(await rooms.textContent()).not.toContain('Test wakes');
    expect(await rooms.locator('.unread').count()).toBe(0);
    expect(await page.title()).not.toMatch(/^\(\d+\)/);

    // Settings: the test wake and its outcome.
    await page.goto(`${ui.s.baseUrl}/#/settings`);
    const panel = page.getByRole('region', { name: 'Test wakes' });
    const row = panel.getByRole('row').filter({ hasText: pinger.handle });
    await expect.poll(() => row.first().textContent()).toContain('handled');
    await accessible(page);
    await docShot(page, 'settings-test-wakes');

    // doctor --wake's test (the same route) shows up there live, and still not in the list.
    const again = await ui.s.api('POST', '/v1/test-wakes', { plate: pinger.plate, from: 'doctor' });
    expect(again.status).toBe(201);
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(2);
    expect(await rooms.textContent()).not.toContain('Test wakes');
    expect(await rooms.locator('.unread').count()).toBe(0);
    await context.close();
  });
});
