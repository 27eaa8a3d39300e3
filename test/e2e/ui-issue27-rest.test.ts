import { describe, it, expect, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, signedInPage } from '../helpers/browser.js';
import { join } from 'node:path';
import { waitFor } from '../helpers/core.js';
import { fixtureRunner, readRunnerLog } from '../integration/wakes-helpers.js';
import { writeInline } from '../../src-main/core/files/service.js';

/** The rest of the window's second pass (docs/ui.md): a file's own URL from the palette, `c` from any room view. */
const skip = browserSkip();
const hashOf = async (page: Page) => new URL(page.url()).hash;
const waitHash = (page: Page, re: RegExp) => expect.poll(() => hashOf(page), { timeout: 10_000 }).toMatch(re);
const TARGET = 'zz/deep/report-quasar.md';

describe.skipIf(!!skip)('UI: the rest of the second pass', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 1 } });
  let a: TestAgent;
  let room: string;

  beforeAll(async () => {
    a = await ui.s.agent('Writer');
    room = await ui.s.room('Files galore');
    await ui.s.join(room, a.plate);
    const c = await ui.s.connect(a.credential);
    // More files than the Files tab loads (500, by path): the target sorts last, off the loaded page.
    // The fillers are written through the file service (what write_file calls): seeding is not what is tested.
    const writer = { kind: 'agent' as const, plate: a.plate, ownerId: (await ui.s.api('GET', '/v1/me')).body.owner_id as string };
    for (let i = 0; i < 505; i++) writeInline(ui.s.running.core, writer, { roomId: room, path: `a/${String(i).padStart(4, '0')}.txt`, content: `filler ${i}`, encoding: 'utf-8' });
    await ok(c, 'write_file', { room, path: TARGET, content: 'the quasar figures of the quarter' });
    await ok(c, 'write_file', { room, path: 'NOTES/near-quasar.md', content: 'quasar nearby, on the first page' });
    await c.close();
  }, 180_000);

  it('a palette file hit goes to the file: its own URL, scrolled into view and highlighted, even off the loaded page; reload lands there', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/needs-you`);
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    await page.keyboard.press('Control+k');
    const d = page.getByRole('dialog', { name: 'Go to anything' });
    await d.getByRole('combobox', { name: 'Search messages, tasks, files and rooms' }).fill('report-quasar');
    await d.getByRole('option', { name: new RegExp(`File ${TARGET.replace(/[./]/g, '\\$&')}`) }).click();
    await waitHash(page, new RegExp(`^#/rooms/${room}/files/`));
    expect(decodeURIComponent((await hashOf(page)).split('/').pop()!)).toBe(TARGET);
    const check = async () => {
      const row = page.getByRole('row', { name: new RegExp(TARGET.replace(/[./]/g, '\\$&')) });
      await row.waitFor();
      expect(await row.getAttribute('aria-current')).toBe('true');
      expect(await row.getAttribute('class')).toContain('highlight');
      await expect.poll(() => row.evaluate((e, h) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= h; }, page.viewportSize()!.height)).toBe(true);
      expect(await page.evaluate("document.activeElement && document.activeElement.getAttribute('data-path')")).toBe(TARGET);
      // It is not on the loaded page (the first 500 paths): it was asked by its path and shown first.
      await page.getByText('The linked file is not on the first page of the list: it is shown first.').waitFor();
      // The room's other files are still listed, none of them marked.
      expect(await page.locator('tr[aria-current="true"]').count()).toBe(1);
      await page.getByRole('row', { name: /a\/0000\.txt/ }).waitFor();
    };
    await check();
    await page.reload();
    await check();
    // A file that is on the loaded page is marked in place, without a second row.
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/files/${encodeURIComponent('NOTES/near-quasar.md')}`);
    const near = page.locator('tr[aria-current="true"]');
    await near.waitFor();
    expect(await near.getAttribute('data-path')).toBe('NOTES/near-quasar.md');
    expect(await page.locator('tr[data-path="NOTES/near-quasar.md"]').count()).toBe(1);
    expect(await page.getByText('The linked file is not on the first page').count()).toBe(0);
    // A path the room does not have says so.
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/files/${encodeURIComponent('no/such.md')}`);
    await page.getByText('This room has no file “no/such.md”', { exact: false }).waitFor();
    expect(await page.locator('tr[aria-current="true"]').count()).toBe(0);
    await context.close();
  });

  it('c opens the board’s New task form from any view of the room, not while typing', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    for (const tab of ['files', 'members', 'wakes', 'workspace']) {
      await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/${tab}`);
      await page.getByRole('navigation', { name: 'Room sections' }).waitFor();
      await page.locator('.room-body').click({ position: { x: 2, y: 2 } });
      await page.evaluate('document.activeElement && document.activeElement.blur()');
      await page.keyboard.press('c');
      const form = page.getByRole('dialog', { name: 'New task' });
      await form.waitFor();
      await waitHash(page, new RegExp(`^#/rooms/${room}/board$`));
      await page.keyboard.press('Escape');
      await form.waitFor({ state: 'detached' });
      expect(await hashOf(page)).toBe(`#/rooms/${room}/board`);
    }
    // The chat: typing c in the composer is a letter, not a shortcut; outside it, c opens the form.
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    const box = page.getByRole('combobox', { name: 'Message the room' });
    await box.click();
    await page.keyboard.type('cc');
    expect(await box.inputValue()).toBe('cc');
    expect(await page.getByRole('dialog', { name: 'New task' }).count()).toBe(0);
    await page.evaluate('document.activeElement && document.activeElement.blur()');
    await page.keyboard.press('c');
    await page.getByRole('dialog', { name: 'New task' }).waitFor();
    await waitHash(page, new RegExp(`^#/rooms/${room}/board$`));
    // The form's own URL works as a link too.
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/board/new`);
    await page.getByRole('dialog', { name: 'New task' }).waitFor();
    await waitHash(page, new RegExp(`^#/rooms/${room}/board$`));
    await context.close();
  });

  it('an agent running a wake reads "working" in the room members and the agents list; a stopped run shows in Needs you with Retry', async () => {
    const sleeper = await ui.s.agent('Sleeper');
    const log = join(ui.s.home, 'sleeper-ui.log');
    expect((await ui.s.api('PUT', `/v1/agents/${sleeper.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    await ui.s.join(room, sleeper.plate);
    expect((await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'sleep on it', definition_of_done: 'never', assignee: sleeper.handle })).status).toBe(201);
    await waitFor(() => readRunnerLog(log).find((l) => l.event === 'saw_task'), 'the task run to start');
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/members`);
    const row = page.locator(`li[data-agent="${sleeper.handle}"]`);
    await expect.poll(() => row.locator('[data-activity]').getAttribute('data-activity'), { timeout: 10_000 }).toBe('working');
    await page.goto(`${ui.s.baseUrl}/#/agents`);
    await expect.poll(() => page.locator('.list li', { hasText: 'Sleeper' }).locator('[data-activity]').getAttribute('data-activity'), { timeout: 10_000 }).toBe('working');
    // Stopped (the route Needs you's Stop takes), the run is a failed wake there, with Retry (requeue).
    const running = ((await ui.s.api('GET', `/v1/agents/${sleeper.plate}/wakes`)).body.wakes as any[]).find((w) => w.status === 'running');
    expect((await ui.s.api('POST', `/v1/wakes/${running.wake_id}/stop`)).status).toBe(200);
    await page.goto(`${ui.s.baseUrl}/#/needs-you`);
    const item = page.getByRole('list', { name: 'Needs you' }).getByRole('listitem', { name: /Wake failed: .* in Files galore/ }).filter({ hasText: 'stopped by' });
    await item.waitFor();
    expect(await item.textContent()).toMatch(/stopped by /);
    await item.getByRole('button', { name: /Retry wake of/ }).click();
    await waitFor(() => readRunnerLog(log).filter((l) => l.event === 'saw_task').length === 2, 'the requeued run to start', 15_000);
    await context.close();
  }, 60_000);

  it('usage today per room (with each agent) and per agent; the runner coalescing switch; the wake limits in settings', async () => {
    const counter = await ui.s.agent('Counter');
    const log = join(ui.s.home, 'counter.log');
    const usage = JSON.stringify({ usage: { input_tokens: 1200, output_tokens: 300, cache_read_tokens: 0, cost_usd: 0.05, model: 'm' } });
    const runner = fixtureRunner(log, { env: { RUNNER_LOG: log, RUNNER_USAGE: usage } });
    expect((await ui.s.api('PUT', `/v1/agents/${counter.plate}/runners/codex`, runner)).status).toBe(200);
    await ui.s.join(room, counter.plate);
    expect((await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: `${counter.handle} count please`, mention_targets: [counter.handle] })).status).toBe(201);
    await waitFor(
      async () => ((await ui.s.api('GET', `/v1/agents/${counter.plate}/wakes`)).body.wakes as any[]).some((w) => w.status === 'handled' || w.status === 'failed'),
      'the mention run to end',
      20_000,
    );
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/wakes`);
    const today = page.getByRole('region', { name: 'Usage today' });
    await expect.poll(() => today.textContent(), { timeout: 10_000 }).toContain('1,200 in');
    expect(await today.textContent()).toContain('300 out');
    expect(await today.textContent()).toContain('$0.05');
    expect(await today.getByRole('list', { name: 'Usage today per agent' }).textContent()).toContain(counter.handle);
    // Each wake of the log shows its own usage.
    expect(await page.getByTestId('wakes').textContent()).toContain('Usage: 1200 in / 300 out tokens, $0.0500');
    // Per agent, on its page; and the runner's coalescing switch, saved and read back.
    await page.goto(`${ui.s.baseUrl}/#/agents/${counter.plate}`);
    await expect.poll(() => page.getByRole('region', { name: 'Usage today' }).textContent(), { timeout: 10_000 }).toContain('1 run');
    const form = page.getByRole('form', { name: /^codex/ });
    const co = form.getByRole('checkbox', { name: 'Coalesce mentions' });
    await co.waitFor();
    expect(await co.isChecked()).toBe(false);
    await co.check();
    await form.getByRole('button', { name: 'Save runner' }).click();
    await form.getByText('Saved.').waitFor();
    const codex = async () => ((await ui.s.api('GET', `/v1/agents/${counter.plate}/runners`)).body.runners as any[]).find((r) => r.host === 'codex');
    await expect.poll(async () => (await codex())?.coalesce, { timeout: 10_000 }).toBe(true);
    // The wake limits: the primary owner reads and changes them in settings.
    await page.goto(`${ui.s.baseUrl}/#/settings`);
    const budget = page.getByRole('spinbutton', { name: 'Wakes per agent per hour (0 = no limit)' });
    await budget.fill('41');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Saved: in force now.').waitFor();
    expect((await ui.s.api('GET', '/v1/settings/wakes')).body.wake_budget).toBe(41);
    await context.close();
  }, 60_000);
});
