// Item 5 (second part): the window's session lives in localStorage for 30 days (sliding), is listed
// and revoked in Settings. The attacks: one owner's session acting as another, or ending another's
// sessions; a revoked session (or its open event stream) going on working; a second owner minting
// a sign-in link for someone else; the token presented from another origin; an expiry that a
// client could stretch. The server's clock is moved (setSessionClock), nothing waits.
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createUiSession, setSessionClock, UI_SESSION_IDLE_MS, UI_SESSION_MAX_MS } from '../../src-main/core/owners/login.js';
import { sha256Hex } from '../../src-main/core/util/ids.js';

const DAY = 24 * 3600 * 1000;

describe('item 5: window sessions cannot be stretched, borrowed or kept once revoked', () => {
  let s: TestServer;
  let bob: { owner_id: string; token: string };
  let carol: { owner_id: string; token: string };

  beforeAll(async () => {
    s = await startTestServer();
    bob = await s.owner('Bob');
    carol = await s.owner('Carol');
  });
  afterEach(() => setSessionClock(s.running.core.db, undefined));
  afterAll(async () => {
    await s?.stop();
  });

  /** Signs in as the page does: preview-free exchange of a one-time link, same origin. */
  async function signIn(url: string, ua = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36'): Promise<{ token: string; id: string }> {
    const token = new URL(url).searchParams.get('token')!;
    const r = await fetch(`${s.baseUrl}/v1/ui/login`, { method: 'POST', headers: { origin: s.baseUrl, 'content-type': 'application/json', 'user-agent': ua }, body: JSON.stringify({ token }) });
    expect(r.status).toBe(201);
    const body = (await r.json()) as { session_token: string; session_id: string };
    return { token: body.session_token, id: body.session_id };
  }
  const linkFor = async (ownerId: string) => (await s.api('POST', `/v1/owners/${ownerId}/login-links`, {})).body.url as string;
  const as = (token: string, init: RequestInit & { path: string }) =>
    fetch(s.baseUrl + init.path, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });
  const me = async (token: string, headers: Record<string, string> = {}) => {
    const r = await as(token, { path: '/v1/me', headers });
    return { status: r.status, body: (await r.json()) as { owner_id?: string; error?: { reason?: string; error_id?: string } } };
  };

  it("one owner's session acts as that owner only: it neither sees nor ends another owner's sessions", async () => {
    const ada = await signIn(s.running.loginUrl());
    const b = await signIn(await linkFor(bob.owner_id));
    expect((await me(b.token)).body.owner_id).toBe(bob.owner_id);

    // Bob's list holds his sessions only; Ada's id is not among them.
    const list = (await (await as(b.token, { path: '/v1/me/sessions' })).json()) as { sessions: Array<{ session_id: string }> };
    expect(list.sessions.map((x) => x.session_id)).toEqual([b.id]);
    expect(JSON.stringify(list)).not.toContain('ars_');

    // Ending Ada's session by its id, with Bob's session or Bob's owner token: not found, and Ada stays signed in.
    for (const t of [b.token, bob.token]) {
      const r = await as(t, { path: `/v1/me/sessions/${ada.id}`, method: 'DELETE' });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { error: { error_id: string } }).error.error_id).toBeTruthy();
    }
    // "Everywhere else" for Bob ends Bob's other sessions, never Ada's.
    const b2 = await signIn(await linkFor(bob.owner_id));
    const r = await as(b.token, { path: '/v1/me/sessions/end-others', method: 'POST', body: JSON.stringify({ keep: b.id }) });
    expect(await r.json()).toEqual({ ended: 1 });
    expect((await me(b2.token)).status).toBe(401);
    expect((await me(b.token)).status).toBe(200);
    expect((await me(ada.token)).body.owner_id).toBe(s.running.core.db.prepare('SELECT id FROM owners WHERE is_primary = 1').pluck().get());
    // Bob's session does not reach the primary owner's routes.
    expect((await as(b.token, { path: '/v1/owners' })).status).toBe(403);
  });

  it('who is signed in shows the owner and nothing of the session it was asked with', async () => {
    const b = await signIn(await linkFor(bob.owner_id));
    const r = await me(b.token);
    expect(r.status).toBe(200);
    // The request's session rides with its owner inside the server (sign-out, tickets): never on the wire.
    expect(Object.keys(r.body).sort()).toEqual(['allow_runners', 'created_at', 'handle', 'is_primary', 'name', 'owner_id', 'plate_prefix']);
    expect(JSON.stringify(r.body)).not.toContain(sha256Hex(b.token));
  });

  it('a revoked session fails on its very next request, its open event stream closes and its tickets are refused', async () => {
    const victim = await signIn(s.running.loginUrl());
    const admin = await signIn(s.running.loginUrl());
    // The revoked window holds a live event stream and one unused ticket.
    const ticket = async () => ((await (await as(victim.token, { path: '/v1/events/ticket', method: 'POST', body: '{}' })).json()) as { ticket: string }).ticket;
    const open = await fetch(`${s.baseUrl}/v1/events?ticket=${await ticket()}`);
    expect(open.status).toBe(200);
    const spare = await ticket();
    const reader = open.body!.getReader();
    await reader.read(); // the stream's first bytes: it is open

    const r = await as(admin.token, { path: `/v1/me/sessions/${victim.id}`, method: 'DELETE' });
    expect(await r.json()).toEqual({ ended: 1 });

    const next = await me(victim.token);
    expect(next.status).toBe(401);
    expect(next.body.error?.reason).toBe('session_ended');
    // The stream ends (the window then asks for a ticket, is refused, and shows the sign-in page).
    let ended = false;
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true }));
      if (chunk.done) {
        ended = true;
        break;
      }
    }
    expect(ended).toBe(true);
    expect((await fetch(`${s.baseUrl}/v1/events?ticket=${spare}`)).status).toBe(401);
    expect((await as(victim.token, { path: '/v1/events/ticket', method: 'POST', body: '{}' })).status).toBe(401);
    // The revoking session itself is untouched; ending the same session again finds nothing.
    expect((await me(admin.token)).status).toBe(200);
    expect((await as(admin.token, { path: `/v1/me/sessions/${victim.id}`, method: 'DELETE' })).status).toBe(404);
  });

  it('a second owner cannot mint a sign-in link for anyone else', async () => {
    const b = await signIn(await linkFor(bob.owner_id));
    const primaryId = s.running.core.db.prepare('SELECT id FROM owners WHERE is_primary = 1').pluck().get() as string;
    for (const cred of [bob.token, b.token]) {
      for (const target of [primaryId, carol.owner_id, bob.owner_id]) {
        const r = await as(cred, { path: `/v1/owners/${target}/login-links`, method: 'POST', body: '{}' });
        expect(r.status).toBe(403);
      }
      // Her own link (POST /v1/login-links) signs in her, never the primary owner, and the page asks first.
      const own = (await (await as(cred, { path: '/v1/login-links', method: 'POST', body: '{}' })).json()) as { url: string };
      const preview = await fetch(`${s.baseUrl}/v1/ui/login/preview`, { method: 'POST', headers: { origin: s.baseUrl, 'content-type': 'application/json' }, body: JSON.stringify({ token: new URL(own.url).searchParams.get('token') }) });
      expect(await preview.json()).toMatchObject({ owner: { owner_id: bob.owner_id }, confirm: true });
    }
    // The primary owner's link for Bob signs in Bob.
    const forBob = await signIn(await linkFor(bob.owner_id));
    expect((await me(forBob.token)).body.owner_id).toBe(bob.owner_id);
  });

  it("the window's token is refused from another origin's request, reads included", async () => {
    const ada = await signIn(s.running.loginUrl());
    const other = 'http://127.0.0.1:9'; // another loopback port: what a local dev server's page sends
    expect((await me(ada.token)).status).toBe(200);
    expect((await me(ada.token, { origin: s.baseUrl })).status).toBe(200);
    const foreign: Array<Record<string, string>> = [{ origin: other }, { origin: 'http://localhost:9' }, { 'sec-fetch-site': 'same-site' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of foreign) {
      const r = await me(ada.token, headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    for (const path of ['/v1/me/sessions', '/v1/rooms']) expect((await as(ada.token, { path, headers: { origin: other } })).status).toBe(403);
    expect((await as(ada.token, { path: '/v1/me/sessions/end-others', method: 'POST', body: '{}', headers: { origin: other } })).status).toBe(403);
    // Nothing was ended by the refused calls.
    expect((await me(ada.token)).status).toBe(200);

    // Nor kept alive: ten days on, a refused request from another origin does not slide the expiry.
    const db = s.running.core.db;
    const t0 = Date.now();
    let now = t0;
    setSessionClock(db, () => now);
    const x = await signIn(s.running.loginUrl());
    const deadline = () => db.prepare('SELECT expires_at FROM ui_sessions WHERE public_id = ?').pluck().get(x.id);
    now = t0 + 10 * DAY;
    expect((await me(x.token, { origin: other })).status).toBe(403);
    expect(deadline()).toBe(t0 + UI_SESSION_IDLE_MS);
    expect((await me(x.token)).status).toBe(200);
    expect(deadline()).toBe(now + UI_SESSION_IDLE_MS);
  });

  it('expiry slides 30 days from the last use by the server clock, never past the maximum age, and a client cannot stretch it', async () => {
    const db = s.running.core.db;
    let now = Date.now();
    setSessionClock(db, () => now);
    const t0 = now;
    const x = await signIn(s.running.loginUrl());
    const row = () => db.prepare('SELECT expires_at, last_used_at FROM ui_sessions WHERE public_id = ?').get(x.id) as { expires_at: number; last_used_at: number } | undefined;
    expect(row()).toEqual({ expires_at: t0 + UI_SESSION_IDLE_MS, last_used_at: t0 });

    // Used again within the minute: nothing is written (every request reads the session).
    now = t0 + 30_000;
    expect((await me(x.token)).status).toBe(200);
    expect(row()).toEqual({ expires_at: t0 + UI_SESSION_IDLE_MS, last_used_at: t0 });

    // Each use moves the deadline to 30 days from that use.
    for (const d of [29, 58]) {
      now = t0 + d * DAY;
      expect((await me(x.token)).status).toBe(200);
      expect(row()).toEqual({ expires_at: now + UI_SESSION_IDLE_MS, last_used_at: now });
    }
    // A list of sessions shows the same deadline.
    const listed = (await (await as(x.token, { path: '/v1/me/sessions' })).json()) as { sessions: Array<{ session_id: string; expires_at: string; last_used_at: string }> };
    expect(listed.sessions.find((y) => y.session_id === x.id)).toMatchObject({ last_used_at: new Date(now).toISOString(), expires_at: new Date(now + UI_SESSION_IDLE_MS).toISOString() });

    // The next use, 87 days in, is capped at the maximum age after sign-in.
    now = t0 + 87 * DAY;
    expect((await me(x.token)).status).toBe(200);
    expect(row()!.expires_at).toBe(t0 + UI_SESSION_MAX_MS);
    now = t0 + UI_SESSION_MAX_MS - 1000;
    expect((await me(x.token)).status).toBe(200);
    // Past the maximum age it ends, used a moment ago or not; nothing a client sends brings it back.
    now = t0 + UI_SESSION_MAX_MS + 1;
    expect((await me(x.token)).status).toBe(401);
    expect(row()).toBeUndefined();

    // Unused for 30 days (a day past): ended, even well within the maximum age.
    now = Date.now();
    const t1 = now;
    const y = await signIn(s.running.loginUrl());
    now = t1 + UI_SESSION_IDLE_MS + 1;
    expect((await me(y.token)).status).toBe(401);
  });

  it('an owner keeps at most 100 window sessions: the least recently used end first', async () => {
    const c = await signIn(await linkFor(carol.owner_id));
    const db = s.running.core.db;
    // 100 more sessions, each used less recently than the first.
    db.prepare('UPDATE ui_sessions SET last_used_at = last_used_at + 60000 WHERE public_id = ?').run(c.id);
    const tokens: string[] = [];
    // What POST /v1/ui/login does once a link is redeemed, 99 times in process; the 100th through HTTP.
    for (let i = 0; i < 99; i++) tokens.push(createUiSession(db, carol.owner_id).sessionId);
    tokens.push((await signIn(await linkFor(carol.owner_id))).token);
    const count = db.prepare('SELECT COUNT(*) FROM ui_sessions WHERE owner_id = ?').pluck().get(carol.owner_id);
    expect(count).toBe(100);
    // The first (used most recently) is still there; the least recently used of the others ended.
    expect((await me(c.token)).status).toBe(200);
    const alive = await Promise.all(tokens.map(async (t) => (await me(t)).status));
    expect(alive.filter((x) => x === 401)).toHaveLength(1);
    const list = (await (await as(c.token, { path: '/v1/me/sessions' })).json()) as { sessions: unknown[] };
    expect(list.sessions).toHaveLength(100);
  });
});
