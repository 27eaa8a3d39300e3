/// <reference lib="dom" />
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { ok, type TestAgent } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, settled, openSignedIn, TAKE_SCREENSHOTS } from '../helpers/browser.js';
import { waitFor } from '../helpers/core.js';
import { fixtureRunner, readRunnerLog } from '../integration/wakes-helpers.js';
import { sendMessage } from '../../src-main/core/messages/service.js';
import { writeInline } from '../../src-main/core/files/service.js';
import { createTask } from '../../src-main/core/tasks/service.js';

/**
 * The window's second pass (docs/ui.md): places with URLs, Needs you, status board, task page,
 * palette, composer; then the rest of it (a file's own URL from the palette, `c` from any room
 * view, runs and usage); then the workspace and the Files tab. One server, one home, one
 * Chromium for all of them, in this order (the Needs you checks come before the later groups add
 * their own items); each test has a signed-in tab of its own (openSignedIn).
 */
const skip = browserSkip();
// The screenshots of docs/ui.md are rewritten only when asked (UPDATE_DOCS_IMG=1), so a test run leaves the tree clean;
// with UI_SCREENSHOTS=1 they go to test-results/docs-img/ for a look; otherwise none is taken (nothing compares them).
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const shot = async (page: Page, name: string) => {
  if (process.env.UPDATE_DOCS_IMG === '1' || TAKE_SCREENSHOTS) await page.screenshot({ path: join(DOCS_IMG, `${name}.png`) });
};
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/**
 * The rules a theme changes: the light pass runs every rule, the dark pass of the same view only these
 * (the rest read the DOM, which is the same in both themes; docs/testing.md, "UI files").
 */
const THEME_RULES = ['color-contrast', 'link-in-text-block'];
async function axeSerious(page: Page, only?: string[]): Promise<string[]> {
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE });
  const runOnly = only ? `, runOnly: { type: 'rule', values: ${JSON.stringify(only)} }` : '';
  return page.evaluate(`(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations']${runOnly} });
    return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ') + ')');
  })()`) as Promise<string[]>;
}
const hashOf = async (page: Page) => new URL(page.url()).hash;
const waitHash = (page: Page, re: RegExp) => expect.poll(() => hashOf(page), { timeout: 10_000 }).toMatch(re);
const TARGET = 'zz/deep/report-quasar.md';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.skipIf(!!skip)('UI: the second pass, its rest, workspace and files', () => {
  // The rest's seeding calls the API many times: no rate limit on this server.
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });

  describe('UI: the second pass', () => {
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
      // The chores go through the task service (what the route's use case calls): seeding is not what is tested.
      for (let i = 0; i < 55; i++) createTask(ui.s.running.core, { kind: 'human', ownerId: me.owner_id }, { roomId: room, title: `Chore ${i}`, definitionOfDone: `Chore ${i} is done`, assignee: b.handle });
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, '');
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/tasks/${failedId}`);
      const d = page.getByRole('dialog', { name: 'Task: Ship the installer' });
      await d.waitFor();
      await page.reload();
      await d.waitFor();
      // Markdown, not raw text.
      expect(await d.locator('.md strong').first().textContent()).toBe('all');
      expect(await d.locator('.md li').allTextContents()).toEqual(['linux', 'mac']);
      expect(await d.textContent()).not.toContain('**all**');
      // The History region lists what the server recorded (docs/tasks.md "History").
      const history = d.getByRole('region', { name: 'History', exact: true }).getByRole('list', { name: 'Recorded changes' });
      await history.waitFor();
      expect(await history.textContent()).toContain('created it');
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/board`);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
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
      // The send's answer lands while keys are still being typed: the sent text must not come back
      // (a key typed before React's next render once handed it the box's old value).
      const again = page.getByRole('combobox', { name: 'Message the room' });
      await again.fill('');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route('**/v1/rooms/*/messages', async (route) => {
        if (route.request().method() !== 'POST') return route.fallback();
        const answer = await route.fetch();
        await held;
        await route.fulfill({ response: answer });
      });
      await again.click();
      await page.keyboard.type('third message');
      await page.keyboard.press('Enter');
      const typing = page.keyboard.type('fourth draft, typed on', { delay: 15 });
      await expect.poll(() => again.inputValue()).toMatch(/fourth d/);
      release();
      await typing;
      await page.getByTestId('history').getByText('third message').waitFor();
      await expect.poll(() => again.inputValue()).toBe('fourth draft, typed on');
      await page.unroute('**/v1/rooms/*/messages');
      await context.close();
    });

    it('each mention shows what became of it per agent, live', async () => {
      // A fresh agent: Tester's queued assignment wakes would run first.
      const p = await ui.s.agent('Pinger');
      await ui.s.join(room, p.plate);
      expect((await ui.s.api('PUT', `/v1/agents/${p.plate}/runners/codex`, { command: process.execPath, args: ['-e', 'process.exit(3)'] })).status).toBe(200);
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${quiet}`);
      await page.getByRole('heading', { name: 'Quiet', level: 1 }).waitFor();
      await page.getByRole('log', { name: 'Messages' }).waitFor();
      expect(await page.getByRole('switch', { name: /Trust/ }).count()).toBe(0);
      await page.goto(`${ui.s.baseUrl}/#/rooms/${shared}`);
      await page.getByRole('switch', { name: /Trust/ }).waitFor();
      await context.close();

      const bobUi = await openSignedIn(ui.browser, ui.s, `rooms/${shared}/workspace`, { ownerId: bob.owner_id });
      await expect.poll(() => bobUi.page.getByTestId('token-current').textContent()).toContain('Token set');
      await bobUi.context.close();
    });

    it('keeps the connect host chosen last; the first-run flow asks how the agent should wake', async () => {
      const { context, page } = await openSignedIn(ui.browser, ui.s, 'welcome');
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}`, { width: 390, height: 844 });
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, '', { bypassCSP: true });
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
          await settled(page);
          for (const x of await axeSerious(page, theme === 'dark' ? THEME_RULES : undefined)) found.push(`${theme} #/${v}: ${x}`);
          if (v.includes('/tasks/')) await page.keyboard.press('Escape');
        }
        await page.keyboard.press('Control+k');
        await page.getByRole('dialog', { name: 'Go to anything' }).getByRole('combobox').fill('Rel');
        await page.getByRole('option', { name: /Room Release/ }).waitFor();
        for (const x of await axeSerious(page, theme === 'dark' ? THEME_RULES : undefined)) found.push(`${theme} palette: ${x}`);
        await page.keyboard.press('Escape');
      }
      expect(found).toEqual([]);
      await context.close();
    });
  });

  /** The rest of the window's second pass (docs/ui.md): a file's own URL from the palette, `c` from any room view. */
  describe('UI: the rest of the second pass', () => {
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, 'needs-you');
      await page.getByRole('heading', { name: 'Needs you', level: 1 }).waitFor();
      await page.keyboard.press('Control+k');
      const d = page.getByRole('dialog', { name: 'Go to anything' });
      await d.getByRole('combobox', { name: 'Search messages, tasks, files and rooms' }).fill('report-quasar');
      await d.getByRole('option', { name: new RegExp(`File ${TARGET.replace(/[./]/g, '\\$&')}`) }).click();
      await waitHash(page, new RegExp(`^#/rooms/${room}/files/`));
      expect(decodeURIComponent((await hashOf(page)).split('/').pop()!)).toBe(TARGET);
      const check = async () => {
        // The table row named by the path, found by role once: a role query names each of the 500 rows, so the
        // other reads go to the same row by its path.
        const named = page.getByRole('row', { name: new RegExp(TARGET.replace(/[./]/g, '\\$&')) });
        await named.waitFor();
        const seen = await named.evaluate((e) => ({ path: e.getAttribute('data-path'), current: e.getAttribute('aria-current'), className: e.className }));
        expect(seen.path).toBe(TARGET);
        expect(seen.current).toBe('true');
        expect(seen.className).toContain('highlight');
        const row = page.locator(`tr[data-path="${TARGET}"]`);
        await expect.poll(() => row.evaluate((e, h) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= h; }, page.viewportSize()!.height)).toBe(true);
        expect(await page.evaluate("document.activeElement && document.activeElement.getAttribute('data-path')")).toBe(TARGET);
        // It is not on the loaded page (the first 500 paths): it was asked by its path and shown first.
        await page.getByText('The linked file is not on the first page of the list: it is shown first.').waitFor();
        // The room's other files are still listed, none of them marked.
        expect(await page.locator('tr[aria-current="true"]').count()).toBe(1);
        await page.locator('tr[data-path="a/0000.txt"]').waitFor();
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
      const { context, page } = await openSignedIn(ui.browser, ui.s);
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/members`);
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
      await waitFor(() => readRunnerLog(log).filter((l) => l.event === 'saw_task').length === 2, 'the requeued run to start');
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${room}/wakes`);
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

  describe('UI: workspace and files', () => {
    let roomId: string;
    let dir: string;

    beforeAll(async () => {
      roomId = await ui.s.room('Assets');
      dir = mkdtempSync(join(tmpdir(), 'agent-rooms-ui-files-'));
    });
    afterAll(async () => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('the workspace token is masked in the page and in every response the page received', async () => {
      const token = 'ghp_' + randomBytes(18).toString('hex') + 'Zq9x';
      const { context, page } = await openSignedIn(ui.browser, ui.s);
      const bodies: Array<{ url: string; body: string }> = [];
      const pending: Promise<void>[] = [];
      page.on('response', (r) => {
        if ((r.headers()['content-type'] ?? '').includes('text/event-stream')) return;
        pending.push(
          r
            .body()
            .then((b) => void bodies.push({ url: r.url(), body: b.toString('utf8') }))
            .catch(() => {}),
        );
      });
      await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/workspace`);
      await page.getByLabel('Local path').fill('/home/ada/src/app');
      await page.getByLabel('Repository URL').fill('https://example.com/ada/app.git');
      await page.getByLabel('Branch').fill('main');
      await page.getByLabel('Git token').fill(token);
      await page.getByRole('button', { name: 'Save workspace' }).click();
      await page.getByText('Workspace saved.').waitFor();
      const current = page.getByTestId('token-current');
      await expect.poll(() => current.textContent()).toContain('••••Zq9x');
      expect(await page.getByLabel('Git token').inputValue()).toBe('');
      await page.reload();
      await expect.poll(() => page.getByTestId('token-current').textContent()).toContain('••••Zq9x');
      expect(await page.getByLabel('Local path').inputValue()).toBe('/home/ada/src/app');
      await screenshot(page, 'workspace');
      expect(await page.content()).not.toContain(token);
      await Promise.all(pending);
      expect(bodies.some((b) => b.url.includes('/workspace'))).toBe(true);
      for (const b of bodies) expect(b.body, b.url).not.toContain(token);
      // The server really holds it: replacing keeps the field write-only.
      const ws = await ui.s.api('GET', `/v1/rooms/${roomId}/workspace`);
      expect(ws.body.git_token).toBe('••••Zq9x');
      await context.close();
    });

    it('a 5 MB upload shows progress, then downloads byte-identical; drag-and-drop, quarantine and delete', async () => {
      const bytes = randomBytes(5 * 1024 * 1024);
      const file = join(dir, 'big.bin');
      writeFileSync(file, bytes);
      const { context, page } = await openSignedIn(ui.browser, ui.s, `rooms/${roomId}/files`);
      await page.getByText('No files yet.').waitFor();

      // Slow the upload down so the progress bar has something to show.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 4 * 1024 * 1024 });
      await page.evaluate(() => {
        const seen: number[] = ((window as any).__progress = []);
        const tick = () => {
          const p = document.querySelector('progress');
          if (p) seen.push(Number(p.getAttribute('value') ?? p.value));
          if (!document.querySelector('li[data-phase="done"], li[data-phase="failed"]')) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      const t0 = Date.now();
      await page.setInputFiles('#file-pick', file);
      await page.locator('li[data-phase="done"]').waitFor({ timeout: 30_000 });
      const uploadMs = Date.now() - t0;
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      const seen: number[] = await page.evaluate(() => (window as any).__progress);
      const partial = seen.filter((v) => v > 0 && v < bytes.length);
      console.log(`5 MB upload: ${uploadMs} ms, ${partial.length} intermediate progress frames, e.g. ${partial.slice(0, 3).map((v) => Math.round((v / bytes.length) * 100) + '%').join(', ')}`);
      expect(partial.length).toBeGreaterThan(0);
      const row = page.getByRole('row', { name: /big\.bin/ });
      await row.waitFor();
      expect(await row.textContent()).toContain('5.0 MiB');
      expect(await row.textContent()).toContain('ready');
      await screenshot(page, 'files');

      const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('button', { name: /Download/ }).click()]);
      const got = readFileSync((await download.path())!);
      expect(got.length).toBe(bytes.length);
      expect(sha(got)).toBe(sha(bytes));

      // Drag and drop a small file onto the drop zone.
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['dropped text'], 'notes.txt', { type: 'text/plain' }));
        document.querySelector('[data-testid="dropzone"]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.getByRole('row', { name: /notes\.txt/ }).waitFor();

      // An upload whose bytes never arrived is shown as not complete yet (people's words, not "quarantined") and cannot be downloaded.
      const q = await ui.s.api('POST', `/v1/rooms/${roomId}/files/uploads`, { filename: 'pending.zip', content_type: 'application/zip', size_bytes: 10, sha256: 'a'.repeat(64) });
      expect(q.status).toBe(201);
      const qrow = page.getByRole('row', { name: /pending\.zip/ });
      await qrow.waitFor({ timeout: 10_000 });
      expect(await qrow.textContent()).toContain('not complete yet');
      expect(await qrow.textContent()).not.toContain('quarantined');
      expect(await qrow.getByRole('button', { name: /Download/ }).isDisabled()).toBe(true);

      // Delete asks first.
      await page.getByRole('row', { name: /notes\.txt/ }).getByRole('button', { name: /Delete/ }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete file?' });
      await confirm.getByRole('button', { name: 'Keep it' }).click();
      await confirm.waitFor({ state: 'detached' });
      expect(await page.getByRole('row', { name: /notes\.txt/ }).count()).toBe(1);
      await page.getByRole('row', { name: /notes\.txt/ }).getByRole('button', { name: /Delete/ }).click();
      await page.getByRole('dialog', { name: 'Delete file?' }).getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('row', { name: /notes\.txt/ }).waitFor({ state: 'detached' });
      await context.close();
    });
  });
});
