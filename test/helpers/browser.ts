import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import type { StartOptions } from '../../src-main/core/start.js';
import { createUiSession } from '../../src-main/core/owners/login.js';
import { primaryOwner } from '../../src-main/core/owners/store.js';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from './server.js';
import { forFile } from './for-file.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const UI_DIR = join(ROOT, 'dist', 'renderer');
export const SHOTS = join(ROOT, 'test-results', 'screenshots');

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): skipping browser tests`;
  if (!existsSync(join(UI_DIR, 'index.html'))) return `UI bundle not built at ${UI_DIR} (npm run build): skipping browser tests`;
  return undefined;
}

/** `browserSkipReason()`, said once as a warning: what a UI test file passes to `describe.skipIf`. */
export function browserSkip(): string | undefined {
  const why = browserSkipReason();
  if (why) console.warn(why);
  return why;
}

/** A UI test file's server and headless Chromium; `close` closes the browser, then stops the server. */
export interface UiRig {
  s: TestServer;
  browser: Browser;
  close(): Promise<void>;
}

/** How a rig opens beyond the server's options. */
export interface UiRigOptions {
  /**
   * false: no Chromium is launched, for a file whose server-only checks (serving the bundle) run
   * where Chromium is missing and whose browser tests are skipped then; reading `browser` throws.
   */
  launch?: boolean;
  /**
   * true: the browser keeps one renderer process for all its pages (`--renderer-process-limit=1`)
   * instead of starting one per browser context; each test's context still has its own storage,
   * session and cache. A UI file opens a context per test: on a busy machine the start of a renderer
   * process was a second or more of each test (docs/testing.md, "UI files").
   */
  oneRenderer?: boolean;
}

export async function openUi(opts: Partial<StartOptions> = {}, rig: UiRigOptions = {}): Promise<UiRig> {
  const s = await startTestServer(opts);
  const browser =
    rig.launch === false
      ? notLaunched()
      : await launchBrowser(rig.oneRenderer ? ['--renderer-process-limit=1'] : []).catch(async (err: unknown) => {
          await s.stop();
          throw err;
        });
  return {
    s,
    browser,
    async close() {
      if (rig.launch !== false) await browser.close();
      await s.stop();
    },
  };
}

function notLaunched(): Browser {
  return new Proxy({} as Browser, {
    get(_target, key) {
      throw new Error(`browser.${String(key)}: Chromium was not launched (${browserSkipReason() ?? 'launch: false'})`);
    },
  });
}

/**
 * A UI test file's server and Chromium, shared by its tests: `const ui = uiForFile()`, then `ui.s` and `ui.browser`.
 * A file that groups several places of the window opens one rig for all of them (docs/testing.md).
 */
export function uiForFile(opts: Partial<StartOptions> = {}, timeoutMs?: number, rig: UiRigOptions = {}): Pick<UiRig, 's' | 'browser'> {
  return forFile(() => openUi(opts, rig), timeoutMs);
}

/** Headless Chromium; `extraArgs` are added to its usual flags. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}

/**
 * A tab (`openTab`: as a new context) signed in through a one-time login URL: the page trades it
 * for a session token kept in the origin's localStorage. Links minted through the API ask first:
 * confirmed here.
 */
export async function signedInPage(browser: Browser, loginUrl: string, opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await openTab(browser, opts);
  await page.goto(loginUrl);
  const signedIn = page.getByTestId('signed-in-as');
  const confirm = page.getByTestId('confirm-sign-in');
  await signedIn.or(confirm).waitFor();
  if (await confirm.isVisible()) await confirm.click();
  await signedIn.waitFor();
  return { context, page };
}

/** How `openTab` sets its tab up. */
export interface TabOptions {
  width?: number;
  height?: number;
  colorScheme?: 'light' | 'dark';
  /** Only so axe-core can be injected as an inline script (the app itself never needs it). */
  bypassCSP?: boolean;
  reducedMotion?: 'reduce' | 'no-preference';
  /** Scripts run in every document of the tab before the app's own (e.g. a recorded Notification API). */
  init?: Array<string | (() => void)>;
}

/** How `openSignedIn` opens its tab beyond the sign-in. */
export interface SignedInOptions extends TabOptions {
  /** Whose session: the primary owner's unless given. */
  ownerId?: string;
}

/** Where the page keeps its session token (src-renderer/src/api.ts). */
const SESSION_KEY = 'agent-rooms.session';

/**
 * A browser tab kept for the next test of the file: opening a tab (`newPage`) is about a second on
 * a busy machine, most of a short UI test's set-up (docs/testing.md, "UI files"). Each tab has a
 * context of its own, so two tabs a test holds at once never share storage.
 */
interface KeptTab {
  context: BrowserContext;
  page: Page;
  /** The context's own close, for a tab that cannot be kept. */
  close: BrowserContext['close'];
}

/** Idle tabs per browser, by the one context option a page cannot change (bypassCSP). */
const keptTabs = new WeakMap<Browser, Map<string, KeptTab[]>>();

/** What a test may have attached to its page, taken off before the tab is kept. */
const PAGE_EVENTS = ['request', 'requestfinished', 'requestfailed', 'response', 'dialog', 'download', 'console', 'pageerror', 'popup', 'filechooser', 'framenavigated', 'load', 'domcontentloaded', 'websocket', 'worker'] as const;

async function takeTab(browser: Browser, bypassCSP: boolean): Promise<KeptTab> {
  const idle = keptTabs.get(browser)?.get(String(bypassCSP));
  while (idle?.length) {
    const tab = idle.pop()!;
    if (!tab.page.isClosed()) return tab;
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', acceptDownloads: true, bypassCSP });
  return { context, page: await context.newPage(), close: context.close.bind(context) };
}

/**
 * The test is done with the tab: what it added goes (init scripts, routes, listeners, other tabs of
 * its context) and the tab waits on about:blank for the next test. A tab the test reached into
 * through CDP (emulated network conditions) is closed instead.
 */
async function keepTab(browser: Browser, bypassCSP: boolean, tab: KeptTab, added: Array<{ dispose(): Promise<void> }>, tainted: boolean): Promise<void> {
  const { context, page } = tab;
  context.close = tab.close;
  try {
    if (tainted || page.isClosed()) throw new Error('not kept');
    for (const d of added) await d.dispose();
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    for (const e of PAGE_EVENTS) page.removeAllListeners(e);
    inFlight.delete(page);
    for (const other of context.pages()) if (other !== page) await other.close();
    await page.goto('about:blank');
  } catch {
    await tab.close();
    return;
  }
  let byKind = keptTabs.get(browser);
  if (!byKind) keptTabs.set(browser, (byKind = new Map()));
  const idle = byKind.get(String(bypassCSP)) ?? [];
  byKind.set(String(bypassCSP), idle);
  idle.push(tab);
}

/**
 * A browser tab already signed in, its page loaded once at `#/<path>`: the set-up of a test whose
 * subject is not the sign-in walk (docs/testing.md, "UI files"). The session is made on the server
 * (`createUiSession`, what POST /v1/ui/login does once the link is redeemed) and put in the tab's
 * localStorage before the app starts, as the sign-in page would have; the walk itself (link,
 * confirmation, exchange, the page reloading at `/`) is `signedInPage`, which the sign-in tests
 * keep. The token is put in once per tab: a sign-out or a reload behaves as after a real sign-in.
 *
 * The tab is one a finished test of the file gave back when there is one (`context.close()` gives
 * it back): it starts as a new context would, with its storage, cookies and permissions cleared
 * (on the first load, before the app's scripts), its viewport, colour scheme and motion set, and
 * none of the previous test's init scripts, routes or listeners; only the HTTP cache stays, as
 * in a browser that has loaded the app before.
 */
export async function openSignedIn(browser: Browser, s: Pick<TestServer, 'running' | 'baseUrl'>, path = '', opts: SignedInOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const db = s.running.core.db;
  const ownerId = opts.ownerId ?? primaryOwner(db)!.owner_id;
  const { sessionId } = createUiSession(db, ownerId);
  const { context, page } = await openTab(browser, opts, `localStorage.setItem(${JSON.stringify(SESSION_KEY)}, ${JSON.stringify(sessionId)});`);
  await page.goto(`${s.baseUrl}/#/${path}`);
  await page.getByTestId('signed-in-as').waitFor();
  return { context, page };
}

/**
 * A tab that starts as a new browser context would, not yet navigated; `context.close()` gives it
 * back for the next test (`keepTab`). It is a tab an earlier test gave back when there is one: its
 * cookies and permissions are cleared, its viewport, colour scheme and motion set, and on its first
 * load (of whatever origin; a reload is not a first load) localStorage and sessionStorage are
 * cleared before any script of the page runs, then `firstLoad` (a script) runs. Only the HTTP
 * cache carries over, and the storage of an origin this tab never loads again.
 */
export async function openTab(browser: Browser, opts: TabOptions = {}, firstLoad = ''): Promise<{ context: BrowserContext; page: Page }> {
  const bypassCSP = !!opts.bypassCSP;
  const tab = await takeTab(browser, bypassCSP);
  const { context, page } = tab;
  context.setDefaultTimeout(15_000);
  await context.clearCookies();
  await context.clearPermissions();
  await page.setViewportSize({ width: opts.width ?? 1280, height: opts.height ?? 800 });
  await page.emulateMedia({ media: null, colorScheme: opts.colorScheme ?? 'light', reducedMotion: opts.reducedMotion ?? 'no-preference', forcedColors: null });
  // A string: this file is compiled without the DOM's types.
  const fresh = JSON.stringify(`test.tab.${randomUUID()}`);
  const added = [await page.addInitScript(`if (!sessionStorage.getItem(${fresh})) { localStorage.clear(); sessionStorage.clear(); sessionStorage.setItem(${fresh}, '1'); ${firstLoad} }`)];
  for (const script of opts.init ?? []) added.push(await page.addInitScript(script));
  let tainted = false;
  const newCDPSession = context.newCDPSession.bind(context);
  context.newCDPSession = (p) => {
    tainted = true;
    return newCDPSession(p);
  };
  let given = false;
  context.close = async () => {
    if (given) return;
    given = true;
    context.newCDPSession = newCDPSession;
    await keepTab(browser, bypassCSP, tab, added, tainted);
  };
  return { context, page };
}

/**
 * Screenshots for a person to look at (nothing compares them) are taken only when asked, with
 * `UI_SCREENSHOTS=1`: each one is a full capture and encode, a third of a second on a busy machine
 * (docs/testing.md, "UI files"). Shots that are compared (baselines) are taken by their test.
 */
export const TAKE_SCREENSHOTS = process.env.UI_SCREENSHOTS === '1';

/** Writes `test-results/screenshots/<name>.png` when `UI_SCREENSHOTS=1`; returns its path, or undefined. */
export async function screenshot(page: Page, name: string): Promise<string | undefined> {
  if (!TAKE_SCREENSHOTS) return undefined;
  mkdirSync(SHOTS, { recursive: true });
  const file = join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Resolves once the page's finite CSS animations and transitions have ended and a frame was
 * painted after them: what a check of painted pixels or colours (screenshots, axe-core) waits
 * for, instead of a fixed sleep. Endless animations (a spinner) are not waited for.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(`(async () => {
    await document.fonts.ready;
    const finite = document.getAnimations().filter((a) => Number.isFinite(a.effect ? a.effect.getComputedTiming().endTime : 0));
    await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  })()`);
}

const inFlight = new WeakMap<Page, Set<Request>>();

/**
 * Counts the page's /v1 requests in flight from now on (the event stream aside: it stays open),
 * for `quiet`. Playwright's 'networkidle' counts the stream, and is reached once per document.
 */
export function trackRequests(page: Page): void {
  if (inFlight.has(page)) return;
  const open = new Set<Request>();
  inFlight.set(page, open);
  page.on('request', (r) => {
    if (r.url().includes('/v1/') && !r.url().includes('/v1/events')) open.add(r);
  });
  page.on('requestfinished', (r) => open.delete(r));
  page.on('requestfailed', (r) => open.delete(r));
}

/** Resolves once the page has no /v1 request in flight (`trackRequests`) and its answers were painted (`settled`). */
export async function quiet(page: Page): Promise<void> {
  const open = inFlight.get(page);
  if (!open) throw new Error('quiet(page): call trackRequests(page) first');
  await expect.poll(() => open.size, { timeout: 30_000, interval: 20 }).toBe(0);
  await settled(page);
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rules a theme changes: the dark pass runs only these (docs/testing.md, "UI files"). */
export const THEME_RULES = ['color-contrast', 'link-in-text-block'];

/** axe-core's serious and critical findings on the page, once it settled (`only`: these rules alone). */
export async function axeSerious(page: Page, only?: string[]): Promise<string[]> {
  await settled(page);
  if (!(await page.evaluate("'axe' in window"))) await page.addScriptTag({ content: AXE });
  const runOnly = only ? `, runOnly: { type: 'rule', values: ${JSON.stringify(only)} }` : '';
  return page.evaluate(`(async () => {
    const res = await window.axe.run(document, { resultTypes: ['violations']${runOnly} });
    return res.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id + ': ' + v.help + ' (' + v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join('; ') + ')');
  })()`) as Promise<string[]>;
}

/** No serious finding in the light theme, nor in the dark one for the rules a theme changes. */
export async function accessible(page: Page): Promise<void> {
  expect(await axeSerious(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await axeSerious(page, THEME_RULES)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'light' });
}
