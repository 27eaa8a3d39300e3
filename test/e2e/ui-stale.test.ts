import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { browserSkipReason, launchBrowser, screenshot, signedInPage } from '../helpers/browser.js';

const skip = browserSkipReason();
if (skip) console.warn(skip);

describe.skipIf(!!skip)('UI: the server goes away and comes back', () => {
  let home: string;
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'agent-rooms-stale-'));
    s = await startTestServer({ home });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('shows a banner, keeps the loaded board readable and marked stale, refuses changes clearly, and refreshes on reconnect', async () => {
    const a = await s.agent('Builder');
    const roomId = await s.room('Release');
    await s.join(roomId, a.plate);
    await s.api('POST', `/v1/rooms/${roomId}/tasks`, { title: 'Ship it', definition_of_done: 'shipped', assignee: a.plate });
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    await page.goto(`${s.baseUrl}/#/rooms/${roomId}/board`);
    await page.getByRole('heading', { name: 'Ship it' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    const port = Number(new URL(s.baseUrl).port);

    await s.stop();
    const banner = page.getByTestId('connection-banner');
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain('Connection to the Agent Rooms server lost');
    // The loaded board stays, marked stale; switching tabs does not replace it with an error.
    expect(await page.getByRole('heading', { name: 'Ship it' }).isVisible()).toBe(true);
    expect(await page.locator('main#main').getAttribute('class')).toContain('stale');
    await page.getByRole('link', { name: 'Chat' }).click();
    await page.getByRole('link', { name: 'Board' }).click();
    await page.getByRole('heading', { name: 'Ship it' }).waitFor();
    // A change is refused with words, not a raw network error.
    await page.getByRole('button', { name: 'New task' }).click();
    const d = page.getByRole('dialog', { name: 'New task' });
    await d.getByLabel('Title').fill('While offline');
    await d.getByLabel('Definition of done').fill('never sent');
    await d.getByRole('button', { name: 'Create task' }).click();
    await expect.poll(() => d.getByRole('alert').textContent()).toContain('Not sent: the Agent Rooms server cannot be reached');
    await d.getByRole('button', { name: 'Close', exact: true }).click();
    await screenshot(page, 'issue16-stale');

    // Back on the same port and home: the banner goes and the board refreshes by itself.
    s = await startTestServer({ home, port });
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    expect(await page.locator('main#main').getAttribute('class')).not.toContain('stale');
    await s.api('POST', `/v1/rooms/${roomId}/tasks`, { title: 'After the restart', definition_of_done: 'seen live', assignee: a.plate });
    await page.getByRole('heading', { name: 'After the restart' }).waitFor({ timeout: 10_000 });
    await context.close();
  });
});
