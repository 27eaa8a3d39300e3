import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { StartOptions } from '../../src-main/core/start.js';
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
}

export async function openUi(opts: Partial<StartOptions> = {}, rig: UiRigOptions = {}): Promise<UiRig> {
  const s = await startTestServer(opts);
  const browser =
    rig.launch === false
      ? notLaunched()
      : await launchBrowser().catch(async (err: unknown) => {
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

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A browser context signed in through a one-time login URL: the page trades it for a session
 * token kept in the tab's sessionStorage. Links minted through the API ask first: confirmed here.
 */
export async function signedInPage(browser: Browser, loginUrl: string, opts: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    colorScheme: opts.colorScheme ?? 'light',
    acceptDownloads: true,
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  await page.goto(loginUrl);
  const signedIn = page.getByTestId('signed-in-as');
  const confirm = page.getByTestId('confirm-sign-in');
  await signedIn.or(confirm).waitFor();
  if (await confirm.isVisible()) await confirm.click();
  await signedIn.waitFor();
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<string> {
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
