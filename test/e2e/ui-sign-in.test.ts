/// <reference lib="dom" />
import { describe, it, expect } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { accessible, browserSkip, CHROMIUM, openSignedIn, openTab, signedInPage, TAKE_SCREENSHOTS, uiForFile } from '../helpers/browser.js';
import { sha256Hex } from '../../src-main/core/util/ids.js';
import { createLoginLink, sessionPublicId } from '../../src-main/core/owners/login.js';

/**
 * Signing in without a terminal (docs/ui.md "Sign-in", docs/security.md item 5), as a person does
 * it: the session outlives the page and the browser; Settings lists the browsers signed in and signs
 * any out, and the window signed out that way shows the sign-in page at once; a link already used
 * (or expired) opened while signed in goes to the app; the primary owner's People page makes a
 * sign-in link for a teammate that signs HER in, and she, signed out, is told to ask for one.
 */
const skip = browserSkip();
// docs/ui.md's screenshots of these places are rewritten only when asked (UPDATE_DOCS_IMG=1), as in ui-second-pass.test.ts.
const DOCS_IMG = fileURLToPath(new URL(process.env.UPDATE_DOCS_IMG === '1' ? '../../docs/img/' : '../../test-results/docs-img/', import.meta.url));
const screenshot = async (page: Page, name: string) => {
  if (process.env.UPDATE_DOCS_IMG === '1' || TAKE_SCREENSHOTS) await page.screenshot({ path: join(DOCS_IMG, `${name}-1280.png`) });
};

const tokenOf = (page: Page) => page.evaluate(() => Object.values(localStorage).find((v: string) => v.startsWith('ars_')) ?? null);
const signedOut = (page: Page) => page.getByText('You are not signed in');

describe.skipIf(!!skip)('UI: signing in without a terminal', () => {
  const ui = uiForFile({}, undefined, { oneRenderer: true });

  it('the session survives closing the page, and the browser: a new page is signed in', async () => {
    const { context, page } = await signedInPage(ui.browser, ui.s.running.loginUrl());
    const token = await tokenOf(page);
    expect(token).toMatch(/^ars_/);
    expect(await page.evaluate(() => Object.values(sessionStorage).some((v: string) => v.startsWith('ars_')))).toBe(false);
    expect(await context.cookies()).toEqual([]);
    await page.close();
    const again = await context.newPage();
    await again.goto(ui.s.baseUrl + '/');
    await again.getByTestId('signed-in-as').waitFor();
    expect(await again.getByTestId('signed-in-as').textContent()).toContain('Ada Owner');
    await context.close();

    // A real browser profile: quit Chromium, start it again on the same profile, open the app.
    const profile = mkdtempSync(join(tmpdir(), 'agent-rooms-profile-'));
    try {
      const first = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
      const p1 = first.pages()[0] ?? (await first.newPage());
      await p1.goto(ui.s.running.loginUrl());
      await p1.getByTestId('signed-in-as').waitFor();
      await first.close();
      const second = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
      const p2 = second.pages()[0] ?? (await second.newPage());
      await p2.goto(ui.s.baseUrl + '/#/settings');
      await p2.getByTestId('signed-in-as').waitFor();
      await second.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
    }
    // Two more Chromium starts: tens of seconds on a busy machine.
  }, 180_000);

  it('Settings lists the signed-in browsers and signs any out; the window signed out shows the sign-in page at once', async () => {
    const other = await openSignedIn(ui.browser, ui.s, 'needs-you');
    const third = await openSignedIn(ui.browser, ui.s, 'agents');
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'settings', { bypassCSP: true });
    const panel = page.getByRole('region', { name: 'Signed-in browsers' });
    await panel.waitFor();
    const mine = sessionPublicId(sha256Hex((await tokenOf(page)) as string));
    const thirdId = sessionPublicId(sha256Hex((await tokenOf(third.page)) as string));
    const mineRow = panel.locator(`[data-session="${mine}"]`);
    await mineRow.getByText('This browser').waitFor();
    expect(await panel.getByText('This browser').count()).toBe(1);
    expect(await panel.getByRole('row').count()).toBeGreaterThanOrEqual(4); // the header and three browsers
    expect(await panel.textContent()).not.toContain('ars_');
    await accessible(page);
    await screenshot(page, 'settings-sessions');

    // One browser: its own row's Sign out; that window goes to the sign-in page without a reload
    // (its live updates close, and asking for them again is refused).
    await panel.locator(`[data-session="${thirdId}"]`).getByRole('button', { name: /^Sign out/ }).click();
    await panel.locator(`[data-session="${thirdId}"]`).waitFor({ state: 'detached' });
    await signedOut(third.page).waitFor({ timeout: 15_000 });
    expect(await other.page.getByTestId('signed-in-as').isVisible()).toBe(true);

    // Everywhere else: the idle window follows by itself (its live updates close), this one stays.
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await panel.getByText(/Signed out \d+ other browser/).waitFor();
    await signedOut(other.page).waitFor({ timeout: 15_000 });
    expect(await tokenOf(other.page)).toBeNull();
    await expect.poll(() => panel.getByRole('row').count()).toBe(2);
    await page.reload();
    await page.getByTestId('signed-in-as').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out everywhere else' }).isDisabled()).toBe(true);
    await Promise.all([other.context.close(), third.context.close(), context.close()]);
  });

  it('a used or expired sign-in link opened while signed in goes to the app; signed out, the page says how to get one', async () => {
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'agents');
    const used = ui.s.running.loginUrl();
    const elsewhere = await signedInPage(ui.browser, used);
    await elsewhere.context.close();
    await page.goto(used);
    // Two page loads (the link's page, then the app): slow on a busy machine.
    await page.getByTestId('signed-in-as').waitFor({ timeout: 30_000 });
    expect(page.url()).not.toContain('token=');
    expect(await page.getByText('not valid').count()).toBe(0);

    const db = ui.s.running.core.db;
    const ownerId = db.prepare('SELECT id FROM owners WHERE is_primary = 1').pluck().get() as string;
    const expired = createLoginLink(db, ui.s.baseUrl, ownerId).url;
    db.prepare('UPDATE login_links SET expires_at = ? WHERE token_hash = ?').run(Date.now() - 1000, sha256Hex(new URL(expired).searchParams.get('token')!));
    await page.goto(expired);
    await page.getByTestId('signed-in-as').waitFor({ timeout: 30_000 });
    await context.close();

    // Not signed in: the dead link says what was wrong and how to get a fresh one.
    const fresh = await openTab(ui.browser);
    await fresh.page.goto(used);
    await fresh.page.getByRole('heading', { name: 'Sign-in link not valid' }).waitFor();
    expect(await fresh.page.getByRole('alert').textContent()).toContain('already used');
    const how = await fresh.page.getByTestId('how-to-sign-in').textContent();
    expect(how).toContain('npx agent-rooms open');
    expect(how).toContain('People page');
    await fresh.page.goto(ui.s.baseUrl + '/');
    await signedOut(fresh.page).waitFor();
    expect(await fresh.page.getByTestId('how-to-sign-in').textContent()).toContain('npx agent-rooms open');
    await fresh.context.close();
  });

  it('People: "Sign-in link" for a teammate signs HER in; signed out, she is told to ask the primary owner, not to run a command', async () => {
    const bea = await ui.s.owner('Bea Teammate');
    const { context, page } = await openSignedIn(ui.browser, ui.s, 'people');
    await page.getByRole('button', { name: 'Sign-in link for Bea Teammate' }).click();
    const shown = page.getByRole('status', { name: 'Sign-in link for Bea Teammate' });
    await shown.waitFor();
    await shown.getByRole('button', { name: 'Copy' }).waitFor();
    const link = (await shown.getByTestId('login-link').textContent())!.trim();
    expect(link).toMatch(/\/login\?token=arc_/);
    await screenshot(page, 'people-sign-in-link');
    // Shown once: Done takes it off the page.
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('login-link').count()).toBe(0);
    await context.close();

    // Her browser: the link asks (it was made through the API), then signs in Bea, not the primary owner.
    const hers = await openTab(ui.browser);
    await hers.page.goto(link);
    await hers.page.getByTestId('confirm-sign-in').click();
    await hers.page.getByTestId('signed-in-as').waitFor();
    expect(await hers.page.getByTestId('signed-in-as').textContent()).toContain('Bea Teammate');
    const me = await hers.page.evaluate(async () => {
      const t = Object.values(localStorage).find((v: string) => v.startsWith('ars_'));
      return (await fetch('/v1/me', { headers: { authorization: `Bearer ${t}` } }).then((r) => r.json())) as { owner_id: string };
    });
    expect(me.owner_id).toBe(bea.owner_id);
    // Her page lists her own sessions only.
    await hers.page.goto(ui.s.baseUrl + '/#/settings');
    await hers.page.getByRole('region', { name: 'Signed-in browsers' }).getByText('This browser').waitFor();
    // The teammates' rooms load, then she signs out.
    await hers.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signedOut(hers.page).waitFor();
    const how = (await hers.page.getByTestId('how-to-sign-in').textContent())!;
    expect(how).toContain('Bea Teammate');
    expect(how).toContain('Ada Owner');
    expect(how).toContain('sign-in link');
    expect(how).not.toContain('agent-rooms open');
    await screenshot(hers.page, 'signed-out-teammate');
    await hers.context.close();
  });
});
