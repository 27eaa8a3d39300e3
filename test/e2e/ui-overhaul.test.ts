/// <reference lib="dom" />
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { ok, type TestAgent, type TestServer } from '../helpers/server.js';
import { browserSkip, uiForFile, screenshot, settled, openSignedIn, openTab, quiet, trackRequests, SHOTS, TAKE_SCREENSHOTS } from '../helpers/browser.js';
import { compareWithBaseline } from './ui-pixels.js';
import { createTask } from '../../src-main/core/tasks/service.js';
import { sendMessage } from '../../src-main/core/messages/service.js';

/**
 * The window people want to live in (issue 16), then its performance with 1,000 tasks and
 * 10,000 messages: one server, one home, one Chromium. The performance group seeds its own room
 * when it starts, after the overhaul's tests (whose board screenshots are compared with
 * baselines that show the overhaul's rooms only); each test has a signed-in tab of its own (openSignedIn).
 */
const skip = browserSkip();

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const card = (page: Page, title: string) => page.locator('article.card', { has: page.getByRole('heading', { name: title, exact: true }) });
const lane = (page: Page, handle: string) => page.getByRole('region', { name: `Lane ${handle}` });
const laneTitles = (page: Page, handle: string) => lane(page, handle).locator('article.card h4').allTextContents();

/**
 * A signed-in page at `#/<path>` (openSignedIn: one page load). These checks are about assignee lanes: the board's
 * "By assignee" grouping (docs/ui.md). CSP is bypassed only so axe-core can be injected (the app itself never needs it).
 */
function open(ui: { s: TestServer; browser: Browser }, path: string, o: { width?: number; height?: number; axe?: boolean; init?: () => void } = {}) {
  return openSignedIn(ui.browser, ui.s, path, {
    width: o.width,
    height: o.height,
    bypassCSP: !!o.axe,
    reducedMotion: 'reduce',
    init: ["localStorage.setItem('ar.board.group', 'assignee')", ...(o.init ? [o.init] : [])],
  });
}

/**
 * The rules a theme changes: the light pass runs every rule, the dark pass of the same view only these
 * (the rest read the DOM, which is the same in both themes; docs/testing.md, "UI files").
 */
const THEME_RULES = ['color-contrast', 'link-in-text-block'];

async function axeSerious(page: Page, only?: string[]): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const r = await page.evaluate(async (only) => {
    const res = await (window as any).axe.run(document, { resultTypes: ['violations'], ...(only ? { runOnly: { type: 'rule', values: only } } : {}) });
    return res.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).slice(0, 3).join('; ')})`);
  }, only);
  return r as string[];
}

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

/**
 * An init script: counts in `window.__timeFormats` every date the page formats for display, whether
 * through a kept Intl.DateTimeFormat or Date's toLocaleString (which builds one each call).
 */
const COUNT_TIME_FORMATS = `(() => {
  window.__timeFormats = 0;
  const format = Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'format');
  Object.defineProperty(Intl.DateTimeFormat.prototype, 'format', {
    configurable: true,
    get() { const f = format.get.call(this); return (d) => { window.__timeFormats++; return f(d); }; },
  });
  const toLocaleString = Date.prototype.toLocaleString;
  Date.prototype.toLocaleString = function (...a) { window.__timeFormats++; return toLocaleString.apply(this, a); };
})()`;

describe.skipIf(!!skip)('UI: the overhaul and its performance', () => {
  // The performance group seeds through the services and reads much: no rate limit on this server.
  const ui = uiForFile({ rateLimit: { perSecond: 0, burst: 0 } }, undefined, { oneRenderer: true });

  describe('UI: the window people want to live in (issue 16)', () => {
    let builder: TestAgent;
    let tester: TestAgent;
    let roomId: string;
    let opsId: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      builder = await ui.s.agent('Builder');
      tester = await ui.s.agent('Tester');
      roomId = await ui.s.room('Release');
      opsId = await ui.s.room('Ops');
      await ui.s.join(roomId, builder.plate);
      await ui.s.join(roomId, tester.plate);
      const mk = async (title: string, assignee: TestAgent, depends_on?: string[]) => {
        const r = await ui.s.api('POST', `/v1/rooms/${roomId}/tasks`, { title, definition_of_done: `${title}: checked by a human`, assignee: assignee.plate, detail: `Detail of ${title}.`, ...(depends_on ? { depends_on } : {}) });
        ids[title] = r.body.task_id;
      };
      await mk('Build the release', builder);
      await mk('Write release notes', builder);
      await mk('Test the release', tester, [ids['Build the release']!]);
    });

    it('narrow (390 px) and wide windows: nothing cut off, the sidebar collapses, screenshots match the baselines', async () => {
      for (const [name, width, height] of [
        ['narrow', 390, 844],
        ['wide', 1440, 900],
      ] as const) {
        const { context, page } = await open(ui, `rooms/${roomId}/board`, { width, height });
        await card(page, 'Test the release').waitFor();
        // Nothing wider than the window.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        const toggle = page.getByRole('button', { name: 'Rooms sidebar' });
        if (name === 'narrow') {
          // One column: the sidebar is a drawer, closed until asked for.
          expect(await page.locator('#sidebar').isVisible()).toBe(false);
          await toggle.click();
          await page.locator('#sidebar').waitFor();
          await page.locator('#sidebar').getByRole('link', { name: /Release/ }).click();
          await expect.poll(() => page.locator('#sidebar').isVisible()).toBe(false);
        } else {
          expect(await page.locator('#sidebar').isVisible()).toBe(true);
          await toggle.click();
          await expect.poll(() => page.locator('#sidebar').isVisible()).toBe(false);
          await toggle.click();
          await page.locator('#sidebar').waitFor();
        }
        await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
        await card(page, 'Test the release').waitFor();
        await page.locator('body').click({ position: { x: 1, y: height - 2 } });
        await page.addStyleTag({ content: '*{caret-color:transparent!important} time{visibility:hidden!important}' });
        await settled(page); // fonts, transitions and the last layout pass
        const shot = await page.screenshot();
        if (TAKE_SCREENSHOTS) {
          mkdirSync(SHOTS, { recursive: true });
          writeFileSync(join(SHOTS, `issue16-board-${name}.png`), shot);
        }
        const { ratio } = compareWithBaseline(`board-${name}`, shot);
        expect(ratio, `board-${name} differs from its baseline by ${(ratio * 100).toFixed(2)}% of pixels`).toBeLessThan(0.01);
        await context.close();
      }
    });

    it('board: compact cards with both dependency badges; the detail panel shows and edits title, detail and order', async () => {
      const { context, page } = await open(ui, `rooms/${roomId}/board`);
      const build = card(page, 'Build the release');
      await build.waitFor();
      expect(await build.textContent()).toContain('holds up “Test the release”');
      expect(await card(page, 'Test the release').textContent()).toContain('waits on “Build the release”');
      expect(await build.textContent()).not.toContain('Consent');
      const box = await build.boundingBox();
      expect(box!.height).toBeLessThan(110); // compact: many cards fit a lane

      await build.click();
      const d = page.getByRole('dialog', { name: 'Task: Build the release' });
      await expect.poll(() => d.textContent()).toContain('Detail of Build the release.');
      expect(await d.textContent()).toContain('Build the release: checked by a human');
      expect(await d.textContent()).toContain('Holds up');
      await d.getByRole('button', { name: 'Edit' }).click();
      await d.getByLabel('Title').fill('Build the release candidate');
      await d.getByLabel('Detail').fill('Use the **release** branch.');
      await d.getByRole('button', { name: 'Save changes' }).click();
      // The detail is rendered Markdown (docs/ui.md), never the raw asterisks.
      await expect.poll(() => d.textContent()).toContain('Use the release branch.');
      expect(await d.locator('.md strong').first().textContent()).toBe('release');
      await page.keyboard.press('Escape');
      await card(page, 'Build the release candidate').waitFor();
      const r = await ui.s.api('GET', `/v1/rooms/${roomId}/tasks/${ids['Build the release']}`);
      expect(r.body.title).toBe('Build the release candidate');
      await ui.s.api('PATCH', `/v1/rooms/${roomId}/tasks/${ids['Build the release']}`, { title: 'Build the release' });
      await card(page, 'Build the release').waitFor();
      // Filters belong to the room and show as active.
      await page.getByLabel('Status').selectOption('waiting');
      await page.getByTestId('active-filters').waitFor();
      await expect.poll(() => page.locator('article.card').count()).toBe(1);
      await page.goto(`${ui.s.baseUrl}/#/rooms/${opsId}/board`);
      await page.getByText('No tasks yet').waitFor();
      expect(await page.getByTestId('active-filters').count()).toBe(0);
      await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => page.locator('article.card').count()).toBe(3);
      await context.close();
    });

    it('drag and drop: within a lane reorders, onto another lane reassigns through the Reassign dialog', async () => {
      const { context, page } = await open(ui, `rooms/${roomId}/board`);
      await card(page, 'Write release notes').waitFor();
      expect(await laneTitles(page, builder.handle)).toEqual(['Build the release', 'Write release notes']);
      await card(page, 'Write release notes').dragTo(card(page, 'Build the release'), { targetPosition: { x: 20, y: 5 } });
      await expect.poll(() => laneTitles(page, builder.handle), { timeout: 10_000 }).toEqual(['Write release notes', 'Build the release']);
      const board = await ui.s.api('GET', `/v1/rooms/${roomId}/board`);
      const lanePlates = board.body.lanes.find((l: any) => l.assignee === builder.plate).tasks.map((t: any) => t.title);
      expect(lanePlates).toEqual(['Write release notes', 'Build the release']);

      await card(page, 'Write release notes').dragTo(lane(page, tester.handle));
      const rd = page.getByRole('dialog', { name: /Reassign/ });
      await rd.waitFor();
      expect(await rd.getByLabel('New assignee').inputValue()).toBe(tester.plate);
      await rd.getByRole('button', { name: 'Reassign' }).click();
      await rd.waitFor({ state: 'detached' });
      await expect.poll(() => laneTitles(page, tester.handle), { timeout: 10_000 }).toContain('Write release notes');
      await context.close();
    });

    it('keyboard: arrows move across cards and lanes, Alt+Up reorders, Enter opens the detail, R reassigns', async () => {
      const { context, page } = await open(ui, `rooms/${roomId}/board`);
      const first = card(page, 'Build the release');
      await first.waitFor();
      await first.focus();
      const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.querySelector('h4')?.textContent ?? null);
      const next = await laneTitles(page, tester.handle); // the tester's lane, in board order
      expect(next).toHaveLength(2);
      await page.keyboard.press('ArrowRight');
      await expect.poll(focused).toBe(next[0]);
      await page.keyboard.press('ArrowDown');
      await expect.poll(focused).toBe(next[1]);
      // Alt+Up moves the card up its lane (the keyboard's reorder); focus stays on it.
      await page.keyboard.press('Alt+ArrowUp');
      await expect.poll(() => laneTitles(page, tester.handle), { timeout: 10_000 }).toEqual([next[1], next[0]]);
      await expect.poll(focused).toBe(next[1]);
      await page.keyboard.press('ArrowLeft');
      await expect.poll(focused).toBe('Build the release');
      // One tab stop for the cards: Tab leaves the board's cards.
      expect(await page.locator('article.card[tabindex="0"]').count()).toBe(1);
      await page.keyboard.press('Enter');
      const d = page.getByRole('dialog', { name: 'Task: Build the release' });
      await d.waitFor();
      await page.keyboard.press('Escape');
      await d.waitFor({ state: 'detached' });
      await expect.poll(focused).toBe('Build the release'); // focus returns to the card
      await page.keyboard.press('r');
      const rd = page.getByRole('dialog', { name: /Reassign “Build the release”/ });
      await rd.waitFor();
      await page.keyboard.press('Escape');
      await context.close();
    });

    it('attention: unread and mention counts in the sidebar and the title after a message from the API, a desktop notification, jump to first unread', async () => {
      // The browser's Notification API, recorded: what the page would show on the desktop.
      const { context, page } = await open(ui, `rooms/${opsId}/chat`, {
        init: () => {
          const seen: string[] = [];
          (window as any).__notes = seen;
          (window as any).Notification = class {
            static permission = 'granted';
            static requestPermission = async () => 'granted';
            onclick: unknown = null;
            constructor(title: string) {
              seen.push(title);
            }
          };
        },
      });
      await page.getByText('No messages yet').waitFor();
      const c = await ui.s.connect(builder.credential);
      await ok(c, 'send_message', { room: roomId, body: 'The build is green.' });
      await ok(c, 'send_message', { room: roomId, body: 'Please review the notes', mention_targets: ['@ada-owner'] });
      const counts = page.locator(`a[data-room="${roomId}"] [data-testid="room-counts"]`);
      await expect.poll(() => counts.textContent(), { timeout: 10_000 }).toContain('2 unread, 1 mention of you');
      await expect.poll(() => page.title()).toBe('(2) Ops · Agent Rooms');
      await expect.poll(() => page.evaluate(() => (window as any).__notes)).toEqual(['Builder mentioned you in Release']);

      // Reading the room acknowledges the mention (docs/needs-you.md); a Needs you reload that the
      // server answers before that acknowledgement lands must not bring the read mention back into
      // the count (the title read "(1) Release" when it did). The acknowledgement is held until such
      // a reload (after a board event) has been answered.
      let letAckGo = () => {};
      const ackGo = new Promise<void>((go) => (letAckGo = go));
      let ackSeen = () => {};
      const ackHeld = new Promise<void>((held) => (ackSeen = held));
      await page.route('**/v1/rooms/*/mentions/acknowledge', async (route) => {
        ackSeen();
        await ackGo;
        await route.continue();
      });
      await page.locator(`a[data-room="${roomId}"]`).click();
      await page.locator('article.msg', { hasText: 'Please review the notes' }).waitFor();
      await ackHeld;
      const reload = page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === '/v1/needs-you', { timeout: 10_000 });
      await ui.s.api('PATCH', `/v1/rooms/${roomId}/tasks/${ids['Build the release']}`, { detail: 'Detail of Build the release.' });
      expect((await (await reload).json()).items.map((i: any) => i.kind)).toContain('mention');
      letAckGo();
      await page.getByRole('button', { name: 'Jump to first unread' }).click();
      await page.getByRole('separator', { name: 'New messages' }).waitFor();
      expect(await page.locator('article.msg.first-unread').textContent()).toContain('The build is green.');
      await expect.poll(() => counts.count()).toBe(0);
      await expect.poll(() => page.title()).toBe('Release · Agent Rooms');
      // The held acknowledgement landed: the server no longer lists the mention either.
      await expect.poll(async () => (await ui.s.api('GET', '/v1/needs-you')).body.items.filter((i: any) => i.kind === 'mention').length).toBe(0);
      await context.close();
    });

    it('chat: Markdown with HTML and script stays inert; code blocks get a copy button; grouping and threads on demand', async () => {
      const { context, page } = await open(ui, `rooms/${roomId}/chat`);
      await page.locator('article.msg').first().waitFor();
      const c = await ui.s.connect(builder.credential);
      const evil = [
        '**Bold** and a list:',
        '- one',
        '- two',
        '<script>window.__pwned = 1</script>',
        '<img src=x onerror="window.__pwned = 2">',
        '[click me](javascript:window.__pwned=3) and [docs](https://example.com/docs)',
        '```js',
        'const x = "<b>not bold</b>";',
        '```',
      ].join('\n');
      await ok(c, 'send_message', { room: roomId, body: evil });
      const msg = page.locator('article.msg', { hasText: 'and a list' });
      await msg.waitFor({ timeout: 10_000 });
      expect(await msg.locator('strong', { hasText: 'Bold' }).count()).toBe(1);
      expect(await msg.locator('li').count()).toBe(2);
      expect(await msg.locator('script, img, iframe').count()).toBe(0);
      expect(await msg.textContent()).toContain('<script>window.__pwned = 1</script>');
      expect(await msg.locator('a[href^="javascript"]').count()).toBe(0);
      const link = msg.locator('a[href="https://example.com/docs"]');
      expect(await link.getAttribute('rel')).toContain('noopener');
      expect(await msg.locator('pre code').textContent()).toContain('const x = "<b>not bold</b>";');
      expect(await msg.locator('pre b').count()).toBe(0);
      expect(await msg.getByRole('button', { name: 'Copy code' }).count()).toBe(1);
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();

      // Two messages in a row from one sender read as one block; replies wait in their thread.
      await ok(c, 'send_message', { room: roomId, body: 'A follow-up line.' });
      const follow = page.locator('article.msg', { hasText: 'A follow-up line.' });
      await follow.waitFor();
      expect(await follow.getAttribute('class')).toContain('compact');
      const root = await ui.s.api('GET', `/v1/rooms/${roomId}/messages?limit=1`);
      const rootId = root.body.messages[0].message_id;
      await ok(c, 'send_message', { room: roomId, body: 'A reply in the thread.', parent_id: rootId });
      await follow.getByRole('button', { name: '1 reply' }).waitFor({ timeout: 10_000 });
      expect(await page.locator('.chat-main article.msg', { hasText: 'A reply in the thread.' }).count()).toBe(0);
      await follow.getByRole('button', { name: '1 reply' }).click();
      await page.getByRole('complementary', { name: 'Thread' }).getByText('A reply in the thread.').waitFor();

      // The search box finds a loaded message (server search when it answers, else the loaded messages).
      await page.getByLabel('Search messages').fill('follow-up');
      const results = page.getByRole('region', { name: 'Search results' });
      await expect.poll(() => results.textContent()).toContain('1 result');
      // Each word of the query is marked where it occurs (server snippets mark 'follow' and 'up' apart).
      expect(await results.locator('mark').first().textContent()).toMatch(/^follow(-up)?$/);
      // The history header is at the top of the history, not a bar over the newest messages.
      expect(await page.locator('.history-bar').textContent()).not.toContain('Start of');
      await screenshot(page, 'issue16-chat');
      await context.close();
    });

    it('Trust: one place in the room header, a sentence naming who, a confirmation before turning on, every owner visible', async () => {
      const bob = await ui.s.owner('Bob Other');
      const helper = await ui.s.agent('Helper', { token: bob.token });
      const xo = await ui.s.room('Cross');
      await ui.s.join(xo, builder.plate);
      await ui.s.api('POST', `/v1/rooms/${xo}/members`, { owner_id: bob.owner_id, role: 'member' });
      await ui.s.join(xo, helper.plate, bob.token);
      const { context, page } = await open(ui, '');
      for (const tab of ['chat', 'board', 'members']) {
        await page.goto(`${ui.s.baseUrl}/#/rooms/${xo}/${tab}`);
        await page.locator('.room-head [data-testid="trust"]').waitFor();
        expect(await page.locator('[data-testid="trust"]').count()).toBe(1);
      }
      const toggle = page.getByRole('switch', { name: /Trust/ });
      await expect.poll(() => page.locator('.trust-effect').textContent()).toContain('Trust lets Bob Other and Bob Other’s agents wake your agents with mentions and assign them work, in this room only.');
      await toggle.click();
      const d = page.getByRole('dialog', { name: 'Turn Trust on?' });
      expect(await d.textContent()).toContain('Bob Other and Bob Other’s agents will be able to wake your agents with mentions and assign them work');
      await d.getByRole('button', { name: 'Keep it off' }).click();
      expect(await toggle.getAttribute('aria-checked')).toBe('false');
      expect((await ui.s.api('GET', `/v1/rooms/${xo}/trust`)).body.owners.find((o: any) => o.name === 'Ada Owner').mode).toBe('blocked');
      await toggle.click();
      await page.getByRole('dialog', { name: 'Turn Trust on?' }).getByRole('button', { name: 'Turn Trust on' }).click();
      await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
      const owners = page.getByRole('list', { name: 'Trust of each owner in this room' });
      await expect.poll(() => owners.textContent()).toContain('Ada Owner (you): trusts');
      expect(await owners.textContent()).toContain('Bob Other: does not trust');
      // Turning it off needs no confirmation.
      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('false');
      await context.close();
    });

    it('people: the primary owner adds a human and hands them a login link that signs them in', async () => {
      const { context, page } = await open(ui, `people`);
      await page.getByLabel('Name').fill('Carol Newcomer');
      await page.getByRole('button', { name: 'Add person' }).click();
      const url = (await page.getByTestId('login-link').textContent())!.trim();
      expect(url).toMatch(/\/login\?token=/);
      // Minted through the API, the link asks before it signs Carol in; confirmed, it does (one tab: the walk of
      // signedInPage, with the question asserted rather than answered if asked).
      const { context: ctx, page: ask } = await openTab(ui.browser);
      await ask.goto(url);
      await ask.getByTestId('confirm-sign-in').click();
      const signedIn = ask.getByTestId('signed-in-as');
      await signedIn.waitFor();
      expect(await signedIn.textContent()).toContain('Carol Newcomer');
      await ctx.close();
      await context.close();
    });

    it('axe-core: no serious or critical violation in any view, light and dark', async () => {
      const { context, page } = await open(ui, '', { axe: true });
      trackRequests(page);
      const views = ['', `rooms/${roomId}/chat`, `rooms/${roomId}/board`, `rooms/${roomId}/files`, `rooms/${roomId}/members`, `rooms/${roomId}/workspace`, `rooms/${roomId}/reservations`, `rooms/${roomId}/wakes`, 'agents', 'reports', 'people', 'welcome'];
      const found: string[] = [];
      for (const theme of ['light', 'dark']) {
        await page.goto(`${ui.s.baseUrl}/#/`);
        await page.getByLabel('Theme').selectOption(theme);
        for (const v of views) {
          await page.goto(`${ui.s.baseUrl}/#/${v}`);
          await page.locator('main#main').waitFor();
          await quiet(page); // its data in and painted
          for (const x of await axeSerious(page, theme === 'dark' ? THEME_RULES : undefined)) found.push(`${theme} #/${v}: ${x}`);
        }
        // The task detail panel, open.
        await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/board`);
        await card(page, 'Build the release').click();
        await page.getByRole('dialog', { name: 'Task: Build the release' }).getByText('Done when').waitFor();
        for (const x of await axeSerious(page, theme === 'dark' ? THEME_RULES : undefined)) found.push(`${theme} task detail: ${x}`);
        await page.keyboard.press('Escape');
      }
      await page.getByLabel('Theme').selectOption('system');
      expect(found).toEqual([]);
      await context.close();
    });
  });

  describe('UI performance: 1,000 tasks in 20 lanes, 10,000 messages', () => {
    // Each test walks a bounded amount of work (1,000 cards, all 10,000 messages page by page) and asserts no
    // timing: on a busy machine that walk outlasts the default 60 s, so each has 180 s.
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
      const { context, page } = await openSignedIn(ui.browser, ui.s, '', { width: 1440, height: 900 });
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
      // A DOM click: the subject is the lane's paging, not the pointer. Playwright's click scrolls the
      // button into view first, and once (CI, a busy machine) it kept finding it scrolled away and then
      // re-rendered for 15 s while the board still settled after the filter was cleared. evaluateAll
      // does not wait: a button the lane re-rendered away between the count and the click is looked
      // for again by the next turn, instead of waited for until a timeout.
      for (let i = 0; i < 10 && (await firstLane.getByRole('button', { name: 'Show more' }).count()) > 0; i++) {
        await firstLane.getByRole('button', { name: 'Show more' }).evaluateAll((bs) => bs.forEach((b) => (b as HTMLButtonElement).click()));
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
    }, 180_000);

    it('a room of 10,000 messages opens at the newest and scrolls back through all of its history', async () => {
      // Every moment the page writes (a chat row writes its time once per render) is counted: a page of older
      // messages renders the rows it mounts, not again every row already shown (docs/ui.md, "Long history").
      const { context, page } = await openSignedIn(ui.browser, ui.s, '', { width: 1280, height: 800, init: [COUNT_TIME_FORMATS] });
      await page.goto('about:blank');
      const t0 = Date.now();
      await page.goto(`${ui.s.baseUrl}/#/rooms/${roomId}/chat`);
      await page.locator(`article.msg[data-seq="${MESSAGES}"]`).waitFor({ timeout: 30_000 });
      rows.push(['history: navigation to newest message shown', `${Date.now() - t0} ms`]);
      await watchLongTasks(page);
      const history = page.getByTestId('history');
      const h0 = Date.now();
      // The walk runs in the page, one evaluate for all of it: per page, scroll to the top, wait until
      // more are loaded (10 s at most), then note the reader's place and the rows in the DOM.
      const walk = await page.evaluate(async (total) => {
        const el = document.querySelector('[data-testid="history"]') as HTMLElement;
        const loaded = () => Number((document.querySelector('[data-testid="loaded-count"]')?.textContent ?? '0').replace(/\D/g, ''));
        const frame = () => new Promise((r) => requestAnimationFrame(r));
        const out = { pages: 0, worstPage: 0, maxDom: 0, lowestScrollTop: Infinity, stuckAt: -1, mounted: 0, formats: 0 };
        // Rows put into the DOM during the walk (a row is one element holding one article.msg).
        const mounts = new MutationObserver((records) => {
          for (const r of records) for (const n of Array.from(r.addedNodes)) if (n instanceof Element) out.mounted += (n.matches('article.msg') ? 1 : 0) + n.querySelectorAll('article.msg').length;
        });
        mounts.observe(el, { childList: true, subtree: true });
        const formats0 = (window as any).__timeFormats as number;
        while (loaded() < total) {
          const before = loaded();
          const p0 = performance.now();
          el.scrollTop = 0;
          while (loaded() <= before && performance.now() - p0 < 10_000) await new Promise((r) => setTimeout(r, 10));
          if (loaded() <= before) {
            out.stuckAt = before;
            break;
          }
          out.worstPage = Math.max(out.worstPage, Math.round(performance.now() - p0));
          out.pages++;
          await frame();
          out.lowestScrollTop = Math.min(out.lowestScrollTop, el.scrollTop);
          out.maxDom = Math.max(out.maxDom, document.querySelectorAll('article.msg').length);
        }
        mounts.disconnect();
        out.formats = ((window as any).__timeFormats as number) - formats0;
        return out;
      }, MESSAGES);
      const { pages, worstPage, maxDom } = walk;
      expect(walk.stuckAt, `no more messages loaded after ${walk.stuckAt}`).toBe(-1);
      // The reader's place is kept: loading older messages does not throw the view to the top.
      expect(walk.lowestScrollTop).toBeGreaterThan(0);
      await history.evaluate((el) => (el.scrollTop = 0));
      await page.locator('article.msg[data-seq="1"]').waitFor();
      rows.push([`history: scroll back through all ${MESSAGES.toLocaleString('en')} (${pages} pages)`, `${Date.now() - h0} ms`]);
      rows.push(['history: slowest page, scroll to rows shown', `${worstPage} ms`]);
      rows.push(['history: most message rows in the DOM at once', String(maxDom)]);
      expect(maxDom).toBeLessThan(300);
      // Rows rendered while paging: those mounted, plus per page the row that was the oldest (it now has one
      // before it and may join its block). Rendering every row shown again on each of a page's updates
      // (scroll, loading, answer, measuring) wrote ten times as many.
      rows.push(['history: rows rendered / rows mounted while paging', `${walk.formats} / ${walk.mounted}`]);
      const lt = await longTasks(page);
      rows.push(['history: longest main-thread task while scrolling', `${Math.round(Math.max(0, ...lt))} ms`]);
      expect(walk.mounted).toBeGreaterThan(pages);
      expect(walk.formats).toBeLessThanOrEqual(walk.mounted + 2 * pages);

      // Live messages still arrive at the bottom of a long room.
      await history.evaluate((el) => (el.scrollTop = el.scrollHeight));
      const l0 = Date.now();
      await ui.s.api('POST', `/v1/rooms/${roomId}/messages`, { body: 'the newest one' });
      await page.locator('article.msg', { hasText: 'the newest one' }).waitFor();
      rows.push(['history: live message, POST to shown', `${Date.now() - l0} ms`]);
      await screenshot(page, 'history-10000');
      await context.close();
    }, 180_000);
  });
});
