import { describe, it, expect, beforeAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ok, type TestAgent } from '../helpers/server.js';
import { accessible, browserSkip, uiForFile, openSignedIn, screenshot } from '../helpers/browser.js';

/**
 * The task page's History (docs/tasks.md "History"), as a person reads it: a region with a
 * heading, listing what the server recorded with who did it and why (a claim, a block with its
 * reason, a release, a reassignment by the owner arriving live), paged with "Show more"; nothing
 * made up ("now failed, last changed …").
 */
const skip = browserSkip();

describe.skipIf(!!skip)('UI: a task’s history', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dev: TestAgent;
  let rev: TestAgent;
  let devC: Client;
  let room: string;
  let ada: string;

  beforeAll(async () => {
    room = await ui.s.room('History room');
    dev = await ui.s.agent('Dev');
    rev = await ui.s.agent('Rev');
    await ui.s.join(room, dev.plate);
    await ui.s.join(room, rev.plate);
    devC = await ui.s.connect(dev.credential);
    ada = (await ui.s.api('GET', '/v1/me')).body.name;
  });

  const create = async (title: string) =>
    ((await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'it is done', assignee: dev.handle })).body as { task_id: string }).task_id;

  it('shows the claim, the block with its reason and the release by the agent, then the owner’s reassignment live, each with its actor', async () => {
    const id = await create('Wire the exporter');
    await ok(devC, 'claim_task', { task_id: id });
    await ok(devC, 'set_status', { task_id: id, status: 'blocked', reason: 'waiting on the export API key' });
    await ok(devC, 'set_status', { task_id: id, status: 'todo' });
    await ok(devC, 'claim_task', { task_id: id });
    await ok(devC, 'release_task', { task_id: id });

    // bypassCSP: the accessibility check injects axe.
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}`, { bypassCSP: true });
    const d = page.getByRole('dialog', { name: 'Task: Wire the exporter' });
    await d.waitFor();
    const history = d.getByRole('region', { name: 'History', exact: true });
    await history.getByRole('heading', { name: 'History', exact: true }).waitFor();
    const items = history.getByRole('list', { name: 'Recorded changes' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(6);
    const texts = await items.allTextContents();
    const line = (re: RegExp) => texts.findIndex((t) => re.test(t));
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const created = line(new RegExp(`${esc(ada)} created it, for ${esc(dev.handle)}`));
    const claimed = line(new RegExp(`${esc(dev.handle)} claimed it`));
    const blocked = line(new RegExp(`${esc(dev.handle)} moved it from doing to blocked: waiting on the export API key`));
    const released = line(new RegExp(`${esc(dev.handle)} released it: back to todo`));
    expect([created, claimed, blocked, released].every((i) => i >= 0), texts.join('\n')).toBe(true);
    expect(created < claimed && claimed < blocked && blocked < released).toBe(true);
    // Each line carries its time as a machine-readable <time>.
    expect(await items.first().locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Nothing made up from the record's timestamps.
    expect(await d.textContent()).not.toMatch(/last changed/);

    // The owner reassigns it (elsewhere): the page shows it without a reload, with who did it.
    expect((await ui.s.api('POST', `/v1/rooms/${room}/tasks/${id}/assign`, { assignee: rev.handle })).status).toBe(200);
    await history.getByText(`reassigned it from ${dev.handle} to ${rev.handle}`).waitFor();
    const last = items.filter({ hasText: 'reassigned it' });
    expect(await last.textContent()).toContain(ada);
    await screenshot(page, 'task-history');
    await accessible(page);
    await context.close();
  });

  it('pages a long history with Show more', async () => {
    const id = await create('Flaky lease');
    // 30 claims and releases: 61 events with the creation, more than the first page (50).
    for (let i = 0; i < 30; i++) {
      await ok(devC, 'claim_task', { task_id: id });
      await ok(devC, 'release_task', { task_id: id });
    }
    const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${id}`);
    const history = page.getByRole('region', { name: 'History', exact: true });
    const items = history.getByRole('list', { name: 'Recorded changes' }).getByRole('listitem');
    await expect.poll(() => items.count()).toBe(50);
    await history.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => items.count()).toBeGreaterThanOrEqual(61);
    await history.getByRole('button', { name: 'Show more' }).waitFor({ state: 'detached' });
    expect(await items.last().textContent()).toContain('released it');
    await context.close();
  });

  it('an agent with a runner and no session reads “asleep — a mention wakes it”; one nothing can wake reads offline', async () => {
    const sleeper = await ui.s.agent('Sleeper');
    const runner = { command: process.execPath, args: ['-e', 'process.exit(0)'] };
    expect((await ui.s.api('PUT', `/v1/agents/${sleeper.plate}/runners/codex`, runner)).status).toBe(200);
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'agents');
    const row = (name: string) => page.getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });
    const asleep = row('Sleeper').locator('[data-presence]');
    await asleep.waitFor();
    expect(await asleep.getAttribute('data-presence')).toBe('asleep');
    expect(await asleep.textContent()).toContain('asleep — a mention wakes it');
    expect(await row('Rev').locator('[data-presence]').getAttribute('data-presence')).toBe('offline');
    await context.close();
  });
});
