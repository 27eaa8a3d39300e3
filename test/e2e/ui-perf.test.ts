/// <reference lib="dom" />
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Page } from 'playwright-core';
import { browserSkip, uiForFile, screenshot, signedInPage } from '../helpers/browser.js';
import { createTask } from '../../src-main/core/tasks/service.js';
import { sendMessage } from '../../src-main/core/messages/service.js';

const skip = browserSkip();

const LANES = 20;
const TASKS = 1000;
const MESSAGES = 10_000;

/** Long main-thread tasks (over 50 ms) the page ran since the observer started. */
async function watchLongTasks(page: Page) {
  await page.evaluate(() => {
    const w = window as any;
    w.__long = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) w.__long.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
}
const longTasks = (page: Page): Promise<number[]> => page.evaluate(() => (window as any).__long ?? []);

describe.skipIf(!!skip)('UI performance: 1,000 tasks in 20 lanes, 10,000 messages', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } });
  let roomId: string;
  const rows: Array<[string, string]> = [];

  beforeAll(async () => {
    roomId = await ui.s.room('Big room');
    const core = ui.s.running.core;
    const me = (await ui.s.api('GET', '/v1/me')).body.owner_id as string;
    const plates: string[] = [];
    for (let i = 0; i < LANES; i++) {
      const a = await ui.s.api('POST', '/v1/agents', { name: `Worker ${i + 1}` });
      plates.push(a.body.plate);
      await ui.s.join(roomId, a.body.plate);
    }
    const t0 = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const dependsOn = i % 10 === 9 ? [ids[i - 1]!] : undefined;
      const t = createTask(core, { kind: 'human', ownerId: me }, { roomId, title: `Task ${i + 1}`, definitionOfDone: `Step ${i + 1} is verified`, assignee: plates[i % LANES]!, dependsOn });
      ids.push(t.task_id);
    }
    for (let i = 0; i < MESSAGES; i++) sendMessage(core, { kind: 'human', ownerId: me }, { roomId, body: `Message number ${i + 1}${i % 7 === 0 ? '\nwith a second line to vary the height' : ''}` });
    rows.push(['seed 1,000 tasks + 10,000 messages (service layer)', `${Date.now() - t0} ms`]);
  }, 180_000);

  afterAll(async () => {
    console.log('\nUI performance (Chromium, headless)\n' + rows.map(([k, v]) => `  ${k.padEnd(58)} ${v}`).join('\n') + '\n');
  });

  it('the board of 1,000 tasks in 20 lanes becomes interactive quickly and stays windowed', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl(), { width: 1440, height: 900 });
    // Twenty assignee lanes: the board's "By assignee" grouping (docs/ui.md).
    await page.evaluate("localStorage.setItem('ar.board.group', 'assignee')");
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
    await page.locator('article.card').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'New task' }).waitFor();
    const interactive = Date.now() - t0;
    rows.push(['board: navigation to interactive (first card, controls)', `${interactive} ms`]);
    await watchLongTasks(page);
    const lanes = await page.locator('section.lane').count();
    expect(lanes).toBe(LANES + 1);
    const cards = await page.locator('article.card').count();
    rows.push(['board: cards in the DOM (of 1,000)', String(cards)]);
    expect(cards).toBeLessThan(TASKS / 2);

    const f0 = Date.now();
    await page.getByLabel('Assignee', { exact: true }).selectOption({ index: 3 });
    await expect.poll(() => page.locator('section.lane').count()).toBe(2);
    rows.push(['board: filter by assignee, to repainted', `${Date.now() - f0} ms`]);
    await page.getByLabel('Assignee', { exact: true }).selectOption('');
    await expect.poll(() => page.locator('section.lane').count()).toBe(LANES + 1);

    // The first page of a lane is part of a shared budget (docs/tasks.md): read the rest of
    // the first lane with its Show more button, then scroll it to its end: the last card renders.
    const s0 = Date.now();
    const firstLane = page.locator('section.lane').first();
    for (let i = 0; i < 10 && (await firstLane.getByRole('button', { name: 'Show more' }).count()) > 0; i++) {
      await firstLane.getByRole('button', { name: 'Show more' }).click();
      await page.evaluate(() => new Promise(requestAnimationFrame));
    }
    expect(await firstLane.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    const list = firstLane.locator('.vlist');
    for (let i = 0; i < 10; i++) {
      await list.evaluate((el) => (el.scrollTop += 1200));
      await page.evaluate(() => new Promise(requestAnimationFrame));
    }
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.getByRole('heading', { name: 'Task 981', exact: true }).waitFor();
    rows.push(['board: read a 50-card lane in pages and scroll it to its end', `${Date.now() - s0} ms`]);
    const lt = await longTasks(page);
    rows.push(['board: longest main-thread task after load', `${Math.round(Math.max(0, ...lt))} ms`]);
    await screenshot(page, 'board-1000');
    await context.close();
  });

  it('a room of 10,000 messages opens at the newest and scrolls back through all of its history', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl(), { width: 1280, height: 800 });
    await page.goto('about:blank');
    const t0 = Date.now();
    await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/chat`);
    await page.locator(`article.msg[data-seq="${MESSAGES}"]`).waitFor({ timeout: 30_000 });
    rows.push(['history: navigation to newest message shown', `${Date.now() - t0} ms`]);
    await watchLongTasks(page);
    const history = page.getByTestId('history');
    const loaded = async () => Number(((await page.getByTestId('loaded-count').textContent()) ?? '0').replace(/\D/g, ''));
    const h0 = Date.now();
    let pages = 0;
    let worstPage = 0;
    let maxDom = 0;
    while ((await loaded()) < MESSAGES) {
      const before = await loaded();
      const p0 = Date.now();
      await history.evaluate((el) => (el.scrollTop = 0));
      await expect.poll(loaded, { timeout: 10_000, interval: 10 }).toBeGreaterThan(before);
      worstPage = Math.max(worstPage, Date.now() - p0);
      pages++;
      // The reader's place is kept: loading older messages does not throw the view to the top.
      await page.evaluate(() => new Promise(requestAnimationFrame));
      expect(await history.evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
      maxDom = Math.max(maxDom, await page.locator('article.msg').count());
    }
    await history.evaluate((el) => (el.scrollTop = 0));
    await page.locator('article.msg[data-seq="1"]').waitFor();
    rows.push([`history: scroll back through all ${MESSAGES.toLocaleString('en')} (${pages} pages)`, `${Date.now() - h0} ms`]);
    rows.push(['history: slowest page, scroll to rows shown', `${worstPage} ms`]);
    rows.push(['history: most message rows in the DOM at once', String(maxDom)]);
    expect(maxDom).toBeLessThan(300);
    const lt = await longTasks(page);
    rows.push(['history: longest main-thread task while scrolling', `${Math.round(Math.max(0, ...lt))} ms`]);

    // Live messages still arrive at the bottom of a long room.
    await history.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const l0 = Date.now();
    await ui.s.api('POST', `/v1/rooms/${roomId}/messages`, { body: 'the newest one' });
    await page.locator('article.msg', { hasText: 'the newest one' }).waitFor();
    rows.push(['history: live message, POST to shown', `${Date.now() - l0} ms`]);
    await screenshot(page, 'history-10000');
    await context.close();
  });
});
