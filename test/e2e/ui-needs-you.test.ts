import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { browserSkip, uiForFile, openSignedIn, TAKE_SCREENSHOTS } from '../helpers/browser.js';

/**
 * Needs you as a person uses it (docs/needs-you.md): a failed wake named by its agent's handle,
 * never "@agent", that leaves once its Retry is handled (and stays gone after a reload); an item
 * dismissed, undone, dismissed again and restored from the Dismissed list; the count beside
 * "Needs you" in the navigation and in the tab title; an invitation from another owner accepted,
 * after which the room is in the room list.
 */
const skip = browserSkip();
// docs/ui.md's screenshots of these places are rewritten only when asked (UPDATE_DOCS_IMG=1), as in ui-second-pass.test.ts.
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const screenshot = async (page: Page, name: string) => {
  if (process.env.UPDATE_DOCS_IMG === '1' || TAKE_SCREENSHOTS) await page.screenshot({ path: join(DOCS_IMG, `${name}-1280.png`) });
};

describe.skipIf(!!skip)('UI: Needs you clears, dismisses, counts and invites', () => {
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-needs-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const needsCount = async () => {
    const r = (await ui.s.api('GET', '/v1/needs-you')).body;
    return r.items.length + r.invitations;
  };

  it('a failed wake names its agent by handle, and leaves once its retry is handled (after a reload too)', async () => {
    const a = await ui.s.agent('Flaky');
    const room = await ui.s.room('Wakes room');
    await ui.s.join(room, a.plate);
    // Fails the first run, succeeds the next (a flag file).
    const flag = join(dir, 'flaky-ran');
    const script = `const fs = require('node:fs'); if (!fs.existsSync(${JSON.stringify(flag)})) { fs.writeFileSync(${JSON.stringify(flag)}, '1'); process.exit(1); }`;
    expect((await ui.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: ['-e', script] })).status).toBe(200);
    await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'please run', mention_targets: [a.handle] });
    const failed = await waitFor(async () => (await ui.s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes.find((w: any) => w.status === 'failed'), 'the failed wake');

    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
    const list = page.getByRole('list', { name: 'Needs you' });
    const item = list.getByRole('listitem', { name: `Wake failed: ${a.handle} (mention) in Wakes room` });
    await item.waitFor();
    expect(await list.textContent()).not.toContain('@agent');
    await screenshot(page, 'needs-you-handle');
    await item.getByRole('button', { name: `Retry wake of ${a.handle} in Wakes room` }).click();
    await waitFor(async () => (await ui.s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes.find((w: any) => w.retry_of === failed.wake_id && w.status === 'handled'), 'the retry handled');
    await expect.poll(() => item.count(), { timeout: 10_000 }).toBe(0);
    await page.reload();
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    await page.getByText(/Nothing (else )?needs you|across your rooms/).first().waitFor();
    expect(await page.getByRole('listitem', { name: `Wake failed: ${a.handle} (mention) in Wakes room` }).count()).toBe(0);
    await context.close();
  }, 90_000);

  it('an item is dismissed, undone, dismissed again and restored from Dismissed; the count is in the navigation and the title', async () => {
    const a = await ui.s.agent('Asker');
    const room = await ui.s.room('Ask room');
    await ui.s.join(room, a.plate);
    const c = await ui.s.connect(a.credential);
    const t = (await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Broken build', definition_of_done: 'd', assignee: a.handle })).body;
    await ok(c, 'claim_task', { task_id: t.task_id });
    await ok(c, 'complete_task', { task_id: t.task_id, status: 'failed', reason: 'red' });
    await ok(c, 'send_message', { room, body: 'can you look at the release notes', mention_targets: ['@ada-owner'] });
    const n = await needsCount();
    expect(n).toBeGreaterThanOrEqual(2);

    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
    const nav = page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: /^Needs you/ });
    const list = page.getByRole('list', { name: 'Needs you' });
    const mention = list.getByRole('listitem', { name: /Mentioned you: .*release notes.* in Ask room/ });
    await mention.waitFor();
    await expect.poll(() => nav.textContent()).toBe(`Needs you${n}`);
    await expect.poll(() => page.title()).toBe(`(${n}) Agent Rooms`);

    await mention.getByRole('button', { name: /^Dismiss Mentioned you/ }).click();
    await expect.poll(() => mention.count()).toBe(0);
    const note = page.getByRole('status').filter({ hasText: 'Dismissed' });
    await note.waitFor();
    await expect.poll(() => page.title()).toBe(`(${n - 1}) Agent Rooms`);
    await expect.poll(() => nav.textContent()).toBe(`Needs you${n - 1}`);
    await note.getByRole('button', { name: 'Undo' }).click();
    await mention.waitFor();
    await expect.poll(() => page.title()).toBe(`(${n}) Agent Rooms`);

    // Dismissed again: it stays gone after a reload, and the Dismissed list restores it.
    await mention.getByRole('button', { name: /^Dismiss Mentioned you/ }).click();
    await expect.poll(() => mention.count()).toBe(0);
    await page.reload();
    await list.getByRole('listitem', { name: /Task failed: Broken build in Ask room/ }).waitFor();
    expect(await mention.count()).toBe(0);
    await page.getByRole('button', { name: 'Dismissed' }).click();
    const dismissed = page.getByRole('list', { name: 'Dismissed' });
    await dismissed.getByRole('listitem', { name: /Mentioned you: .*release notes/ }).getByRole('button', { name: /^Restore/ }).click();
    await mention.waitFor();
    await expect.poll(() => page.title()).toBe(`(${n}) Agent Rooms`);
    await screenshot(page, 'needs-you-dismissed');
    await context.close();
  }, 90_000);

  it('an invitation from another owner: shown with Accept and Decline, the room listed once accepted', async () => {
    const bea = await ui.s.owner('Bea Inviter');
    const me = (await ui.s.api('GET', '/v1/me')).body;
    const room = await ui.s.room('Bea plans', bea.token);
    expect((await ui.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: me.owner_id, role: 'member' }, bea.token)).status).toBe(201);
    const spam = await ui.s.room('Bea spam', bea.token);
    expect((await ui.s.api('POST', `/v1/rooms/${spam}/members`, { owner_id: me.owner_id, role: 'member' }, bea.token)).status).toBe(201);

    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
    const invitations = page.getByRole('list', { name: 'Invitations' });
    const inv = invitations.getByRole('listitem', { name: 'Invitation to Bea plans' });
    await inv.waitFor();
    expect(await inv.textContent()).toContain('Bea Inviter');
    const sidebarLink = page.locator(`#sidebar a[data-room="${room}"]`);
    expect(await sidebarLink.count()).toBe(0);
    await page.getByRole('link', { name: '2 invitations to accept or decline' }).waitFor();
    await screenshot(page, 'needs-you-invitation');
    await inv.getByRole('button', { name: 'Accept invitation to Bea plans' }).click();
    await sidebarLink.waitFor();
    await expect.poll(() => inv.count()).toBe(0);
    await invitations.getByRole('listitem', { name: 'Invitation to Bea spam' }).getByRole('button', { name: 'Decline invitation to Bea spam' }).click();
    await expect.poll(() => invitations.count()).toBe(0);
    expect((await ui.s.api('GET', '/v1/invitations')).body.total).toBe(0);
    expect((await ui.s.api('GET', `/v1/rooms/${spam}`)).status).toBe(404);
    await context.close();
  }, 90_000);

  it('a burst of events reloads Needs you at most once every few seconds, not once per event', async () => {
    const room = await ui.s.room('Busy room');
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    await page.waitForTimeout(3500);
    const loads: number[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/v1/needs-you') loads.push(Date.now());
    });
    for (let i = 0; i < 30; i++) await ui.s.api('POST', `/v1/rooms/${room}/messages`, { body: `chatter ${i}` });
    await page.waitForTimeout(4000);
    // 30 messages: one reload (two if the burst straddled the 3 s window), never one per message.
    expect(loads.length).toBeGreaterThanOrEqual(1);
    expect(loads.length).toBeLessThanOrEqual(2);
    await context.close();
  }, 60_000);
});
