import { describe, it, expect, beforeAll } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, signedInPage } from '../helpers/browser.js';
import { waitFor } from '../helpers/core.js';
import { sendMessage } from '../../src-main/core/messages/service.js';

/** The window's second pass (docs/ui.md): places with URLs, Needs you, status board, task page, palette, composer. */
const skip = browserSkip();
// The screenshots of docs/ui.md are rewritten only when asked (UPDATE_DOCS_IMG=1), so a test run leaves the tree clean.
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const shot = (page: Page, name: string) => page.screenshot({ path: join(DOCS_IMG, `${name}.png`) });
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
async function axeSerious(page: Page): Promise<string[]> {
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE });
  return page.evaluate(`(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations'] });
    return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ') + ')');
  })()`) as Promise<string[]>;
}
const hashOf = async (page: Page) => new URL(page.url()).hash;
const waitHash = (page: Page, re: RegExp) => expect.poll(() => hashOf(page), { timeout: 10_000 }).toMatch(re);

describe.skipIf(!!skip)('UI: the second pass', () => {
  const ui = uiForFile();
  let a: TestAgent;
  let b: TestAgent;
  let me: { owner_id: string; handle: string };
  let room: string;
  let quiet: string;
  let failedId: string;

  beforeAll(async () => {
    me = (await ui.s.api('GET', '/v1/me')).body;
    a = await ui.s.agent('Builder');
    b = await ui.s.agent('Tester');
    room = await ui.s.room('Release');
    quiet = await ui.s.room('Quiet');
    await ui.s.join(room, a.plate);
    await ui.s.join(room, b.plate);
    await ui.s.join(quiet, a.plate);
    const mk = async (title: string, assignee: TestAgent, extra: Record<string, unknown> = {}) =>
      (await ui.s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: `${title} is done`, assignee: assignee.handle, ...extra })).body;
    const failing = await mk('Ship the installer', a, { detail: 'Build **all** targets:\n\n- linux\n- mac' });
    failedId = failing.task_id;
    await mk('Announce the release', b, { depends_on: [failing.task_id] });
    for (let i = 0; i < 55; i++) await mk(`Chore ${i}`, b);
    const c = await ui.s.connect(a.credential);
    await ok(c, 'claim_task', { task_id: failing.task_id });
    await ok(c, 'complete_task', { task_id: failing.task_id, status: 'failed', reason: 'signing key expired' });
    await ok(c, 'send_message', { room, body: 'Can you renew the signing key?', mention_targets: [me.handle] });
    // An old message in a quiet room, far above the latest page.
    await ui.s.api('POST', `/v1/rooms/${quiet}/messages`, { body: 'the zanzibar checksum lives in notes.txt' });
    // The fillers go through the message service (what the route calls): seeding is not what is tested.
    for (let i = 0; i < 260; i++) sendMessage(ui.s.running.core, { kind: 'human', ownerId: me.owner_id }, { roomId: quiet, body: `filler ${i}` });
  }, 120_000);

  it('starts on Needs you: what waits on me across rooms, each with its room and one action; j/k and Enter open it', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/`);
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    expect(await hashOf(page)).toBe('#/needs-you');
    const list = page.getByRole('list', { name: 'Needs you' });
    await list.getByRole('listitem', { name: /Task failed: Ship the installer in Release/ }).waitFor();
    await list.getByRole('listitem', { name: /Waits on a failed task: Announce the release in Release/ }).waitFor();
    await list.getByRole('listitem', { name: /Mentioned you: .*renew the signing key.* in Release/ }).waitFor();
    expect(await list.getByRole('listitem', { name: /Task failed: Ship the installer/ }).textContent()).toContain('signing key expired');
    // The top bar fits one row at 1280 px, with the backup indicator.
    await page.getByTestId('backup-panel').waitFor();
    const bar = await page.locator('header.topbar').boundingBox();
    expect(bar!.height).toBeLessThan(56);
    const overflow = await page.locator('header.topbar').evaluate((e) => e.scrollWidth - e.clientWidth);
    expect(overflow).toBeLessThanOrEqual(1);
    await shot(page, 'needs-you-1280');
    // Keyboard: j/k move, Enter opens the task's page.
    await list.getByRole('listitem').first().focus();
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    const first = await list.getByRole('listitem').first().getAttribute('aria-label');
    await page.keyboard.press('Enter');
    await waitHash(page, /^#\/rooms\//);
    expect(first).toBeTruthy();
    await page.goBack();
    await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
    // Open goes to the task's own page.
    await list.getByRole('listitem', { name: /Task failed: Ship the installer/ }).getByRole('link', { name: 'Open Ship the installer' }).click();
    await page.getByRole('dialog', { name: 'Task: Ship the installer' }).waitFor();
    expect(await hashOf(page)).toBe(`#/rooms/${room}/tasks/${failedId}`);
    await context.close();
  });

  it('a task has its URL: reload lands on it, with rendered Markdown, dependencies, history and its actions', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${failedId}`);
    const d = page.getByRole('dialog', { name: 'Task: Ship the installer' });
    await d.waitFor();
    await page.reload();
    await d.waitFor();
    // Markdown, not raw text.
    expect(await d.locator('.md strong').first().textContent()).toBe('all');
    expect(await d.locator('.md li').allTextContents()).toEqual(['linux', 'mac']);
    expect(await d.textContent()).not.toContain('**all**');
    await d.getByRole('list', { name: 'Task history' }).waitFor();
    expect(await d.getByRole('list', { name: 'Task history' }).textContent()).toContain('created');
    await d.getByText('Holds up').waitFor();
    await d.getByRole('button', { name: 'Reassign' }).waitFor();
    await shot(page, 'task-page-1280');
    // Esc closes it and goes back to the board's URL.
    await page.keyboard.press('Escape');
    await d.waitFor({ state: 'detached' });
    expect(await hashOf(page)).toBe(`#/rooms/${room}/board`);
    await context.close();
  });

  it('the board groups by status with the totals of the whole room, and switches to assignees; c opens a new task', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/board`);
    const todo = page.getByRole('region', { name: 'To do', exact: true });
    await todo.waitFor();
    for (const name of ['Doing', 'Blocked', 'Done']) await page.getByRole('region', { name, exact: true }).waitFor();
    // 56 todo tasks, of which only the first page of each lane is loaded; the heading says 56.
    await expect.poll(() => todo.getByRole('heading', { level: 3 }).textContent()).toContain('56');
    expect(await page.getByRole('region', { name: 'Blocked', exact: true }).getByRole('heading', { level: 3 }).textContent()).toContain('1');
    expect(await page.getByRole('region', { name: 'Blocked', exact: true }).textContent()).toContain('Ship the installer');
    await shot(page, 'board-status-1280');
    await page.getByRole('button', { name: 'By assignee' }).click();
    await page.getByRole('region', { name: `Lane ${b.handle}` }).waitFor();
    await page.getByRole('button', { name: 'By status' }).click();
    await todo.waitFor();
    await page.locator('body').press('c');
    await page.getByRole('dialog', { name: 'New task' }).waitFor();
    await page.keyboard.press('Escape');
    await context.close();
  });

  it('Ctrl+K searches every room; a message that is not loaded is loaded around, scrolled into view and highlighted', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    await page.getByRole('log', { name: 'Messages' }).waitFor();
    await page.keyboard.press('Control+k');
    const d = page.getByRole('dialog', { name: 'Go to anything' });
    await d.waitFor();
    await d.getByRole('combobox', { name: 'Search messages, tasks, files and rooms' }).fill('zanzibar');
    const hit = d.getByRole('option', { name: /zanzibar/ });
    await hit.waitFor();
    await shot(page, 'palette-1280');
    await page.keyboard.press('ArrowDown');
    await hit.click();
    await waitHash(page, /^#\/rooms\/[^/]+\/messages\/1$/);
    const msg = page.locator('article.msg.highlight');
    await msg.waitFor();
    expect(await msg.textContent()).toContain('zanzibar checksum');
    expect(await msg.isVisible()).toBe(true);
    await page.getByRole('button', { name: /Jump to latest messages/ }).click();
    await page.getByText('filler 259').waitFor();
    // Rooms are hits too.
    await page.keyboard.press('Control+k');
    await d.getByRole('combobox').fill('Quie');
    await d.getByRole('option', { name: /Room Quiet/ }).click();
    await waitHash(page, new RegExp(`^#/rooms/${quiet}$`));
    await context.close();
  });

  it('composer: Enter in a code fence is a new line; drafts survive room switches and reloads; keys typed while sending stay', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    const box = page.getByRole('combobox', { name: 'Message the room' });
    await box.click();
    await page.keyboard.type('```');
    await page.keyboard.press('Enter');
    await page.keyboard.type('npm test');
    await page.keyboard.press('Enter');
    await page.keyboard.type('```');
    expect(await box.inputValue()).toBe('```\nnpm test\n```');
    await page.keyboard.press('Enter'); // the fence is closed: Enter sends
    await page.locator('article.msg pre').filter({ hasText: 'npm test' }).waitFor();
    await expect.poll(() => box.inputValue()).toBe('');
    // Typed while the message is on its way: kept.
    await page.keyboard.type('first message');
    await page.keyboard.press('Enter');
    await page.keyboard.type('second draft', { delay: 5 });
    await page.getByTestId('history').getByText('first message').waitFor();
    await expect.poll(() => box.inputValue()).toBe('second draft');
    // Another room and back; then a reload.
    await page.goto(`${ui.s.baseUrl}/#/rooms/${quiet}`);
    await page.getByRole('combobox', { name: 'Message the room' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Message the room' }).inputValue()).toBe('');
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    expect(await page.getByRole('combobox', { name: 'Message the room' }).inputValue()).toBe('second draft');
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Message the room' }).inputValue()).toBe('second draft');
    await context.close();
  });

  it('each mention shows what became of it per agent, live', async () => {
    // A fresh agent: Tester's queued assignment wakes would run first.
    const p = await ui.s.agent('Pinger');
    await ui.s.join(room, p.plate);
    expect((await ui.s.api('PUT', `/v1/agents/${p.plate}/runners/codex`, { command: process.execPath, args: ['-e', 'process.exit(3)'] })).status).toBe(200);
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    const box = page.getByRole('combobox', { name: 'Message the room' });
    await box.fill(`${p.handle} please check`);
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Send' }).click();
    const status = page.getByRole('list', { name: 'What became of the mentions' }).last();
    await expect.poll(() => status.textContent(), { timeout: 20_000 }).toMatch(new RegExp(`${p.handle.replace(/[()]/g, '\\$&')}: failed`));
    await context.close();
  });

  it('Trust shows only where other owners are; a non-admin sees "Token set"; the connect dialog keeps the last host', async () => {
    const bob = await ui.s.owner('Bob Other');
    const bobs = await ui.s.agent('Helper', { token: bob.token });
    const shared = await ui.s.room('Shared');
    expect((await ui.s.api('POST', `/v1/rooms/${shared}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBeLessThan(300);
    await ui.s.join(shared, bobs.plate, bob.token);
    expect((await ui.s.api('PUT', `/v1/rooms/${shared}/workspace`, { git_token: 'ghp_secret_token_1234' })).status).toBe(200);
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/rooms/${quiet}`);
    await page.getByRole('heading', { name: 'Quiet', level: 1 }).waitFor();
    await page.getByRole('log', { name: 'Messages' }).waitFor();
    expect(await page.getByRole('switch', { name: /Trust/ }).count()).toBe(0);
    await page.goto(`${ui.s.baseUrl}/#/rooms/${shared}`);
    await page.getByRole('switch', { name: /Trust/ }).waitFor();
    await context.close();

    const link = await ui.s.api('POST', '/v1/login-links', {}, bob.token);
    const bobUi = await signedInPage(ui.browser, link.body.url);
    await bobUi.page.goto(`${ui.s.baseUrl}/#/rooms/${shared}/workspace`);
    await expect.poll(() => bobUi.page.getByTestId('token-current').textContent()).toContain('Token set');
    await bobUi.context.close();
  });

  it('keeps the connect host chosen last; the first-run flow asks how the agent should wake', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    await page.goto(`${ui.s.baseUrl}/#/welcome`);
    await page.getByLabel('Where it runs').selectOption('codex');
    await page.reload();
    expect(await page.getByLabel('Where it runs').inputValue()).toBe('codex');
    await page.getByLabel('Agent name').fill('Waker');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByTestId('connect-command').waitFor();
    await page.getByLabel('New room name').fill('Wake test');
    await page.getByRole('button', { name: 'Add to room' }).click();
    await page.getByRole('heading', { name: '4. How should it wake?' }).waitFor();
    const how = page.getByLabel('When mentioned or given a task');
    // The host's preset is chosen once the presets are in (the inbox until then).
    await expect.poll(() => how.inputValue()).toContain('codex');
    await how.selectOption('__inbox__');
    await page.getByRole('button', { name: 'Send a test mention' }).click();
    await expect.poll(() => page.getByTestId('wake-test').textContent(), { timeout: 15_000 }).toMatch(/inbox/i);
    await context.close();
  });

  it('on a phone the room header is compact; the new places at 390x844', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl(), { width: 390, height: 844 });
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}`);
    await page.getByRole('log', { name: 'Messages' }).waitFor();
    const tabs = await page.getByRole('navigation', { name: 'Room sections' }).boundingBox();
    await shot(page, 'room-390');
    // Everything above the messages (top bar, room header, tabs) under a fifth of the screen.
    expect(tabs!.y + tabs!.height).toBeLessThan(844 / 5);
    await page.goto(`${ui.s.baseUrl}/#/needs-you`);
    await page.getByRole('list', { name: 'Needs you' }).waitFor();
    await shot(page, 'needs-you-390');
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/board`);
    await page.getByRole('region', { name: 'To do', exact: true }).waitFor();
    await shot(page, 'board-status-390');
    await page.goto(`${ui.s.baseUrl}/#/rooms/${room}/tasks/${failedId}`);
    await page.getByRole('dialog', { name: 'Task: Ship the installer' }).waitFor();
    await shot(page, 'task-page-390');
    await page.keyboard.press('Escape');
    await page.goto(`${ui.s.baseUrl}/#/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await waitFor(() => true, 'settings');
    await context.close();
  });

  it('axe-core: no serious or critical violation in the new places, light and dark', async () => {
    // axe is injected as an inline script: this context bypasses the page's CSP (script-src 'self').
    const context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await page.goto(ui.s.running.loginUrl());
    await page.getByTestId('signed-in-as').waitFor();
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      for (const [v, ready] of [
        ['needs-you', () => page.getByRole('list', { name: 'Needs you' }).waitFor()],
        [`rooms/${room}/board`, () => page.getByRole('region', { name: 'To do', exact: true }).waitFor()],
        [`rooms/${room}/tasks/${failedId}`, () => page.getByRole('dialog', { name: 'Task: Ship the installer' }).waitFor()],
        [`rooms/${room}`, () => page.getByRole('log', { name: 'Messages' }).waitFor()],
        ['settings', () => page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()],
      ] as const) {
        await page.goto(`${ui.s.baseUrl}/#/${v}`);
        await ready();
        await page.waitForTimeout(300);
        for (const x of await axeSerious(page)) found.push(`${theme} #/${v}: ${x}`);
        if (v.includes('/tasks/')) await page.keyboard.press('Escape');
      }
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Go to anything' }).getByRole('combobox').fill('Rel');
      await page.getByRole('option', { name: /Room Release/ }).waitFor();
      for (const x of await axeSerious(page)) found.push(`${theme} palette: ${x}`);
      await page.keyboard.press('Escape');
    }
    expect(found).toEqual([]);
    await context.close();
  });
});
