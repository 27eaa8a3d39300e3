/// <reference lib="dom" />
// Item 6: login and logout CSRF. The attack: while the user is signed in to the UI, a page
// on another loopback port (a) opens a login link the attacker minted for their own owner, to
// put the user in the attacker's session, and (b) posts forms to the logout endpoints. Login
// must never silently replace a live session of another owner (the page asks, and only a
// same-origin POST signs in); logout is a POST that other origins cannot make.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { browserSkipReason, launchBrowser, signedInPage } from '../helpers/browser.js';
import { startEvilOrigin, type EvilOrigin } from '../helpers/evil-origin.js';

const skip = browserSkipReason();
if (skip) console.warn(`test/security/06-login-logout-csrf.test.ts: ${skip}`);

describe.skipIf(!!skip)('item 6: login and logout CSRF', () => {
  let s: TestServer;
  let browser: Browser;
  let evil: EvilOrigin;
  let mallory: { owner_id: string; token: string };

  beforeAll(async () => {
    s = await startTestServer();
    // One renderer process for all the tabs (as the UI files; docs/testing.md, "UI files"): what is
    // checked here is what reaches the servers and which session each tab holds, not process isolation.
    browser = await launchBrowser(['--renderer-process-limit=1']);
    evil = await startEvilOrigin();
    mallory = await s.owner('Mallory');
  });
  afterAll(async () => {
    await browser?.close();
    await evil?.close();
    await s?.stop();
  });

  const malloryLink = async () => (await s.api('POST', '/v1/login-links', {}, mallory.token)).body.url as string;
  const whoIsSignedIn = async (page: Page) => {
    await page.reload();
    const who = page.getByTestId('signed-in-as');
    const out = page.getByText('You are not signed in');
    await who.or(out).waitFor();
    return (await who.count()) ? ((await who.textContent()) ?? '') : 'signed out';
  };
  const malloryUiSessions = () => (s.running.core.db.prepare('SELECT COUNT(*) AS n FROM ui_sessions WHERE owner_id = ?').get(mallory.owner_id) as { n: number }).n;

  it("a page on another port that opens the attacker's login link does not sign the user in as the attacker", async () => {
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    expect(await whoIsSignedIn(page)).toContain('Ada Owner');
    const link = await malloryLink();
    evil.page('/login-csrf', `<!doctype html><script>location.href = ${JSON.stringify(link)};</script>`);
    const attack = await context.newPage();
    await attack.goto(evil.origin + '/login-csrf');
    await attack.waitForURL((u) => u.origin === s.baseUrl);
    // The attacked tab asks, naming the account; nothing is signed in without the click.
    const confirm = attack.getByTestId('confirm-sign-in');
    await confirm.or(attack.getByTestId('signed-in-as')).waitFor();
    expect(await attack.getByTestId('signed-in-as').count()).toBe(0);
    expect(await confirm.textContent()).toContain('Mallory');
    expect(attack.url()).not.toContain('token=');
    expect(malloryUiSessions()).toBe(0);
    // The user's own tab is still the user's.
    expect(await whoIsSignedIn(page)).toContain('Ada Owner');
    await context.close();
  });

  it("a link that would replace this browser's session of another owner says so, and replaces it only when confirmed", async () => {
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    await page.goto(await malloryLink());
    const confirm = page.getByTestId('confirm-sign-in');
    await confirm.waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('You are signed in as Ada Owner in this browser');
    await confirm.click();
    await page.getByTestId('signed-in-as').waitFor();
    expect(await page.getByTestId('signed-in-as').textContent()).toContain('Mallory');
    await context.close();
  });

  it('the sign-in exchange refuses a POST from another origin, even with a valid link', async () => {
    const link = new URL(await malloryLink()).searchParams.get('token')!;
    for (const path of ['/v1/ui/login', '/v1/ui/login/preview']) {
      const r = await fetch(s.baseUrl + path, {
        method: 'POST',
        headers: { origin: evil.origin, 'content-type': 'text/plain' },
        body: JSON.stringify({ token: link }),
      });
      expect(r.status).toBe(403);
    }
    const ok = await fetch(s.baseUrl + '/v1/ui/login/preview', { method: 'POST', headers: { origin: s.baseUrl, 'content-type': 'application/json' }, body: JSON.stringify({ token: link }) });
    expect(ok.status).toBe(200);
  });

  it('a page on another port cannot sign the user out', async () => {
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    const target = (path: string) => `<form method="post" action="${s.baseUrl}${path}" target="_self"></form>`;
    evil.page(
      '/logout-csrf',
      `<!doctype html><title>wait</title>${target('/logout')}${target('/v1/ui/logout')}
       <iframe name="a"></iframe><iframe name="b"></iframe>
       <script>
         const [f1, f2] = document.forms; f1.target = 'a'; f2.target = 'b';
         f1.submit(); f2.submit();
         fetch(${JSON.stringify(s.baseUrl + '/v1/ui/logout')}, { method: 'POST', credentials: 'include', mode: 'no-cors' })
           .finally(() => setTimeout(() => { document.title = 'done'; }, 500));
       </script>`,
    );
    const attack = await context.newPage();
    await attack.goto(evil.origin + '/logout-csrf');
    await expect.poll(() => attack.title(), { timeout: 10_000 }).toBe('done');
    expect(await whoIsSignedIn(page)).toContain('Ada Owner');

    // Even holding the token, a request from another origin cannot end the session.
    const token = await page.evaluate(() => Object.values(localStorage).find((v) => v.startsWith('ars_'))!);
    const r = await fetch(s.baseUrl + '/v1/ui/logout', { method: 'POST', headers: { origin: evil.origin, authorization: `Bearer ${token}` } });
    expect(r.status).toBe(403);
    expect(await whoIsSignedIn(page)).toContain('Ada Owner');
    // GET does nothing either: sign-out is a POST.
    expect((await fetch(s.baseUrl + '/v1/ui/logout', { headers: { authorization: `Bearer ${token}` } })).status).toBe(405);
    await context.close();
  });
});
