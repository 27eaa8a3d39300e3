import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { ERROR_ID_RE, INITIALIZE, rawHttp, rawMcp, sessionIdOf } from '../helpers/core.js';
import { ERROR_CODES } from '../../shared/errors.js';
import { EXECUTABLE } from '../helpers/download-types.js';
import { CHROMIUM, launchBrowser } from '../helpers/browser.js';
import { edgeString } from '../load/arbitraries.js';
import { UNAUTH_ROWS_PER_WINDOW, UNAUTH_WINDOW_MS, flushUnauthenticatedEvidence } from '../../src-main/core/evidence/store.js';

/** What the in-browser script load uses of the page's globals. */
interface PageGlobals {
  pwned?: string;
  document: {
    createElement(tag: 'script'): { src: string; onload: (() => void) | null; onerror: (() => void) | null };
    head: { appendChild(el: unknown): void };
  };
}

/**
 * What only the HTTP adapter does, split out of tests of rules that now run in process
 * (core-human-api, diagnose, files, 09-evidence-flood, 13-download-types, 17-invisible-and-leaks, core-auth): headers as they cross the wire, the error
 * docs page, a download URL served by the listener, raw unauthenticated requests, the event stream, the MCP
 * transport's Authorization header, session ids, and the Host and Origin checks.
 */
/** One server for the file: every describe below (also those folded from smoke and ui-routes) uses it. */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
});
afterAll(async () => s?.stop());

describe('the HTTP adapter', () => {
  let a: TestAgent;
  let room: string;

  beforeAll(async () => {
    a = await s.agent('Wire');
    room = await s.room('Wire');
    await s.join(room, a.plate);
  });

  it('unauthenticated or bad tokens: 401 with WWW-Authenticate, no header at all included', async () => {
    for (const token of ['', 'aro_nope', s.ownerToken + 'x']) {
      const r = await fetch(`${s.baseUrl}/v1/me`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      const body = (await r.json()) as any;
      expect(body.error.code).toBe('UNAUTHENTICATED');
      expect(body.error.error_id).toMatch(ERROR_ID_RE);
    }
  });

  it('serves a documentation page for every error code at doc_url', async () => {
    const res = await fetch(`${s.baseUrl}/docs/errors`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    for (const code of ERROR_CODES) {
      const section = new RegExp(`<section id="${code}">([\\s\\S]*?)</section>`).exec(html);
      expect(section, code).not.toBeNull();
      expect(section![1]).toMatch(/What to do:/);
      expect(section![1]!.replace(/<[^>]+>/g, '').length).toBeGreaterThan(60);
    }
    // Feedback consent is explained where CONSENT_REQUIRED is.
    expect(/<section id="CONSENT_REQUIRED">([\s\S]*?)<\/section>/.exec(html)![1]).toMatch(/set_feedback_consent/);
    // A real error's doc_url is that page, anchored at the code.
    const c = await s.connect(a.credential);
    const e = await fails(c, 'read_room', { room: 'room_missing' });
    const u = new URL(e.doc_url);
    expect(u.pathname).toBe('/docs/errors');
    expect(u.hash).toBe('#NOT_FOUND');
    expect((await fetch(e.doc_url)).status).toBe(200);
  });

  it('fetch_file serves inline files at its download_url, with their content type', async () => {
    const c = await s.connect(a.credential);
    const w = await ok(c, 'write_file', { room, path: 'ctx/a.txt', content: 'a' });
    const f = await ok(c, 'fetch_file', { file_id: w.file_id });
    const g = await fetch(f.download_url);
    expect(g.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await g.text()).toBe('a');
  });

  it('unauthenticated requests with no header, or raw to /mcp, get an error id each; their evidence is bounded and the rest counted (09-evidence-flood)', async () => {
    const db = s.running.core.db;
    const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM evidence').get() as { n: number }).n;
    const suppressedSoFar = () =>
      (db.prepare("SELECT arg_shape FROM evidence WHERE reason = 'aggregated'").all() as Array<{ arg_shape: string }>).reduce(
        (n, r) => n + (JSON.parse(r.arg_shape) as { suppressed: number }).suppressed,
        0,
      );
    flushUnauthenticatedEvidence(db, Infinity);
    const before = rows();
    const suppressedBefore = suppressedSoFar();
    const attempts: Array<() => Promise<Response>> = [
      () => fetch(s.baseUrl + '/v1/rooms'),
      () => fetch(s.baseUrl + '/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    ];
    const ids = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const batch = await Promise.all(Array.from({ length: 30 }, (_, j) => attempts[(i * 30 + j) % attempts.length]!()));
      for (const r of batch) {
        expect(r.status).toBe(401);
        const body = (await r.json()) as { error: { error_id: string } };
        expect(body.error.error_id).toMatch(/^err_/);
        ids.add(body.error.error_id);
      }
    }
    expect(ids.size).toBe(120);
    const stored = rows() - before;
    expect(stored).toBeLessThanOrEqual(2 * UNAUTH_ROWS_PER_WINDOW * 2);
    flushUnauthenticatedEvidence(db, Date.now() + UNAUTH_WINDOW_MS);
    expect(suppressedSoFar() - suppressedBefore + stored).toBe(120);
  });

  describe('item 13: downloads on the UI origin (13-download-types)', () => {
    async function downloadUrl(path: string, contentType: string, content: string): Promise<string> {
      const c = await s.connect(a.credential);
      const w = await ok(c, 'write_file', { room, path: `downloads/${path}`, content, content_type: contentType });
      await c.close();
      const d = await s.api('GET', `/v1/rooms/${room}/files/${w.file_id}/download`);
      expect(d.status).toBe(200);
      return d.body.download_url;
    }

    it.each(EXECUTABLE)('%s stored as %s is served as an octet-stream attachment', async (path, type) => {
      const r = await fetch(await downloadUrl(path, type, 'window.pwned = true;'));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/octet-stream');
      expect(r.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('passive types are served with their stored type', async () => {
      const url = await downloadUrl('notes.txt', 'text/plain; charset=utf-8', 'hello');
      expect((await fetch(url)).headers.get('content-type')).toBe('text/plain; charset=utf-8');
    });

    const noBrowser = existsSync(CHROMIUM) ? undefined : `Chromium not found at ${CHROMIUM}: skipping the in-browser script load`;
    if (noBrowser) console.warn(noBrowser);
    it.skipIf(noBrowser !== undefined)('a stored script loaded by a page of the UI origin does not run', async () => {
      const url = await downloadUrl('payload.js', 'text/javascript', 'window.pwned = "ran";');
      let browser: Browser | undefined;
      try {
        browser = await launchBrowser();
        const page = await browser.newPage();
        // Any page of the server's origin stands in for the UI with a markup injection in it.
        await page.goto(`${s.baseUrl}/docs/errors`);
        const outcome = await page.evaluate(
          (src) =>
            new Promise<string>((resolve) => {
              // Runs in the page: the DOM of this file's types would change fetch's for the whole test program.
              const g = globalThis as unknown as PageGlobals;
              const el = g.document.createElement('script');
              el.src = src;
              el.onload = () => resolve(String(g.pwned ?? 'loaded, did not run'));
              el.onerror = () => resolve('blocked');
              g.document.head.appendChild(el);
            }),
          url,
        );
        expect(outcome).toBe('blocked');
      } finally {
        await browser?.close();
      }
    });
  });

  it("issue 26 F8 (17-invisible-and-leaks): owners.changed with another owner's allow_runners reaches only that owner and the primary", async () => {
    const bob = await s.owner('Bob');
    const carol = await s.owner('Carol');
    const t = await fetch(`${s.baseUrl}/v1/events/ticket`, { method: 'POST', headers: { authorization: `Bearer ${bob.token}` } });
    expect(t.status).toBe(201);
    const { ticket } = (await t.json()) as { ticket: string };
    const ac = new AbortController();
    const stream = await fetch(`${s.baseUrl}/v1/events?ticket=${ticket}`, { signal: ac.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let seen = '';
    const readUntil = async (needle: string) => {
      const dec = new TextDecoder();
      while (!seen.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += dec.decode(value);
      }
    };
    // The attack: watch the stream while the primary owner changes Carol's right, then Bob's own.
    expect((await s.api('PATCH', `/v1/owners/${carol.owner_id}`, { allow_runners: true })).status).toBe(200);
    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true })).status).toBe(200);
    await readUntil(bob.owner_id);
    ac.abort();
    expect(seen).toContain('owners.changed');
    expect(seen).not.toContain(carol.owner_id);
  });

  describe('authentication on the MCP resources, on the wire (core-auth)', () => {
    let b: TestAgent;
    beforeAll(async () => {
      b = await s.agent('Beta');
      await s.join(room, b.plate);
    });

    async function expect401(token: string | undefined, path = '/mcp') {
      const r = await rawMcp(s, INITIALIZE, token === undefined ? {} : { authorization: `Bearer ${token}` }, { path });
      expect(r.status, `token ${String(token).slice(0, 40)}`).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(r.text).not.toContain('"result"');
      return JSON.parse(r.text);
    }

    it('a passport from POST /v1/auth/passport opens a session over raw HTTP; the mint needs a header', async () => {
      const minted = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST', headers: { authorization: `Bearer ${a.credential}` } });
      expect(minted.status).toBe(200);
      const { passport } = (await minted.json()) as { passport: string };
      const r = await rawMcp(s, INITIALIZE, { authorization: `Bearer ${passport}` });
      expect(r.status).toBe(200);
      expect(r.headers.get('mcp-session-id')).toBeTruthy();
      const none = await fetch(`${s.baseUrl}/v1/auth/passport`, { method: 'POST' });
      expect(none.status).toBe(401);
    });

    it('no token, garbage and malformed tokens: 401 with WWW-Authenticate: Bearer, before any JSON-RPC', async () => {
      const sessions = s.running.core.sessions.size;
      await expect401(undefined);
      await expect401('garbage');
      await expect401('ark_' + 'A'.repeat(43));
      await expect401('a.b.c');
      await expect401(undefined, '/mcp/claude-code');
      const r = await rawMcp(s, INITIALIZE, { authorization: 'Basic Zm9vOmJhcg==' });
      expect(r.status).toBe(401);
      expect(s.running.core.sessions.size).toBe(sessions);
    });

    it('a second plate reusing another agent’s session id gets 403', async () => {
      const ca = await s.connect(a.credential);
      const sid = sessionIdOf(ca);
      const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'send_message', arguments: { room, body: 'hijack' } } };
      const r = await rawMcp(s, call, { authorization: `Bearer ${b.credential}`, 'mcp-session-id': sid });
      expect(r.status).toBe(403);
      expect(r.text).not.toContain('hijack');
      const h = await ok(ca, 'read_room', { room });
      expect(h.messages.some((m: any) => m.body === 'hijack')).toBe(false);
      // The owner of the session still uses it.
      const mine = await rawMcp(s, { ...call, params: { name: 'whoami', arguments: {} } }, { authorization: `Bearer ${a.credential}`, 'mcp-session-id': sid });
      expect(mine.status).toBe(200);
      expect(mine.text).toContain(a.plate);
    });
  });

  describe('DNS-rebinding defence', () => {
    const init = JSON.stringify(INITIALIZE);
    it('a foreign Host gets 403 on /mcp and /v1', async () => {
      const port = s.running.port;
      const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${a.credential}` };
      const good = await rawHttp(port, { method: 'POST', path: '/mcp', headers: { ...mcpHeaders, host: `localhost:${port}` }, body: init });
      expect(good.status).toBe(200);
      for (const host of ['evil.example:' + port, `127.0.0.1:${port + 1}`, 'attacker.test', `127.0.0.1.evil.test:${port}`]) {
        const r = await rawHttp(port, { method: 'POST', path: '/mcp', headers: { ...mcpHeaders, host }, body: init });
        expect(r.status, host).toBe(403);
        const v1 = await rawHttp(port, { path: '/v1/me', headers: { host, authorization: `Bearer ${s.ownerToken}` } });
        expect(v1.status, host).toBe(403);
        expect(JSON.parse(v1.text).error.code).toBe('FORBIDDEN');
      }
    });

    it('a foreign Origin gets 403; a loopback Origin is allowed', async () => {
      const auth = { authorization: `Bearer ${a.credential}` };
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: 'http://evil.example' })).status).toBe(403);
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: 'null' })).status).toBe(403);
      expect((await rawMcp(s, INITIALIZE, { ...auth, origin: `http://localhost:${s.running.port}` })).status).toBe(200);
      const v1 = await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${s.ownerToken}`, origin: 'https://evil.example' } });
      expect(v1.status).toBe(403);
    });
  });
});

/**
 * Folded from smoke.test.ts and ui-routes.test.ts (issue 29 item 6: one server for the three
 * small HTTP files). The first walk is the smoke test of the whole stack; the rest are the /v1
 * routes the UI overhaul added, over the listener.
 */
describe('folded: smoke and UI routes, on the same server', () => {
  /** A structured API error: the status, the code, an error id. */
  function expectApiError(r: { status: number; body: any }, status: number, code: string) {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.error_id).toMatch(ERROR_ID_RE);
  }

  describe('smoke', () => {
    it('an agent connects, sees its identity and posts a message', async () => {
      const a = await s.agent('Reviewer');
      const room = await s.room('Main');
      await s.join(room, a.plate);
      const c = await s.connect(a.credential);
      const me = await ok(c, 'whoami');
      expect(me.plate).toBe(a.plate);
      const m = await ok(c, 'send_message', { room, body: 'hello' });
      expect(m.seq).toBe(1);
      const h = await ok(c, 'read_room', { room });
      expect(h.messages.map((x: any) => x.body)).toEqual(['hello']);
    });
  });

  /** The /v1 routes the UI overhaul (issue 16) added: human task edit, login links for other owners, every owner's Trust. */
  describe('UI routes (/v1)', () => {
    let bob: { owner_id: string; token: string };
    let builder: TestAgent;
    let helper: TestAgent;
    let roomId: string;

    beforeAll(async () => {
      bob = await s.owner('Bob Other');
      builder = await s.agent('Builder');
      helper = await s.agent('Helper', { token: bob.token });
      roomId = await s.room('Edits');
      await s.join(roomId, builder.plate);
    });

    it('PATCH /v1/rooms/:id/tasks/:taskId edits title, detail and order of an unfinished task; the rules of update_task hold', async () => {
      const t = await s.api('POST', `/v1/rooms/${roomId}/tasks`, { title: 'Draft', definition_of_done: 'it is written', assignee: builder.plate });
      expect(t.status).toBe(201);
      const id = t.body.task_id;
      const r = await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { title: 'Write the draft', detail: 'Two pages, plain words.', order: 5 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ title: 'Write the draft', detail: 'Two pages, plain words.', order: 5 });
      const read = await s.api('GET', `/v1/rooms/${roomId}/tasks/${id}`);
      expect(read.body.title).toBe('Write the draft');
      // An agent sees the edit through MCP.
      const c = await s.connect(builder.credential);
      const board = await ok(c, 'read_board', { room: roomId, detail: 'full' });
      expect(JSON.stringify(board)).toContain('Write the draft');

      // Bad input: structured 400s, never a crash.
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { title: '' }), 400, 'INVALID_ARGUMENT');
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { order: 'first' }), 400, 'INVALID_ARGUMENT');
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { status: 'done' }), 400, 'INVALID_ARGUMENT');
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { depends_on: [id] }), 400, 'INVALID_ARGUMENT');
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/task_nope`, { title: 'x' }), 404, 'NOT_FOUND');

      // A non-member does not see the task; a member who is neither admin, assignee's owner nor creator may not edit.
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { title: 'Mine now' }, bob.token), 404, 'NOT_FOUND');
      expect((await s.api('POST', `/v1/rooms/${roomId}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
      expectApiError(await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { title: 'Mine now' }, bob.token), 403, 'FORBIDDEN');

      // A finished task cannot be edited.
      await ok(c, 'claim_task', { task_id: id });
      await ok(c, 'complete_task', { task_id: id, status: 'done', summary: 'written', handoff_notes: 'nothing left' });
      const late = await s.api('PATCH', `/v1/rooms/${roomId}/tasks/${id}`, { title: 'Too late' });
      expectApiError(late, 409, 'CONFLICT');
      expect(late.body.error.reason).toBe('task_finished');
    });

    it('POST /v1/owners/:id/login-links: the primary owner mints a one-time link that signs the other owner in', async () => {
      const r = await s.api('POST', `/v1/owners/${bob.owner_id}/login-links`, {});
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.url).toMatch(/\/login\?token=/);
      // The page trades the link for a session token (no cookie); a link minted through the API asks first.
      const token = new URL(r.body.url).searchParams.get('token')!;
      const json = { origin: s.baseUrl, 'content-type': 'application/json' };
      const preview = await fetch(`${s.baseUrl}/v1/ui/login/preview`, { method: 'POST', headers: json, body: JSON.stringify({ token }) });
      expect(await preview.json()).toMatchObject({ owner: { owner_id: bob.owner_id }, confirm: true });
      const login = await fetch(`${s.baseUrl}/v1/ui/login`, { method: 'POST', headers: json, body: JSON.stringify({ token }) });
      expect(login.status).toBe(201);
      expect(login.headers.get('set-cookie')).toBeNull();
      const session = ((await login.json()) as any).session_token as string;
      const me = await fetch(`${s.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${session}` } });
      expect(((await me.json()) as any).owner_id).toBe(bob.owner_id);
      // Only the primary owner may, and only for an owner that exists.
      expectApiError(await s.api('POST', `/v1/owners/${bob.owner_id}/login-links`, {}, bob.token), 403, 'FORBIDDEN');
      expectApiError(await s.api('POST', `/v1/owners/own_missing/login-links`, {}), 404, 'NOT_FOUND');
    });

    it('GET /v1/rooms/:id/trust lists every owner of the room with its Trust mode', async () => {
      const room = await s.room('Trust list');
      await s.join(room, builder.plate);
      expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
      await s.join(room, helper.plate, bob.token);
      expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bob.token)).status).toBe(200);
      const r = await s.api('GET', `/v1/rooms/${room}/trust`);
      expect(r.status).toBe(200);
      const byName = Object.fromEntries(r.body.owners.map((o: any) => [o.name, o]));
      expect(byName['Bob Other']).toMatchObject({ mode: 'trust_room', agents: 1 });
      expect(byName['Ada Owner']).toMatchObject({ mode: 'blocked', agents: 1 });
      const outsider = await s.owner('Outsider');
      expectApiError(await s.api('GET', `/v1/rooms/${room}/trust`, undefined, outsider.token), 404, 'NOT_FOUND');
    });
  });
});

/**
 * Folded from fuzz-routes.test.ts, whose route fuzzing now runs in process: what only the
 * listener sees, raw paths on the wire (the server's split between /v1, /mcp, files and the UI)
 * and the one /v1 route that writes its own response, the event stream.
 */
describe('fuzz: what crosses the wire', () => {
  /** Percent-encodes any string; a lone surrogate becomes the invalid UTF-8 bytes %ED%A0%80. */
  const enc = (v: string): string => {
    try {
      return encodeURIComponent(v);
    } catch {
      return encodeURIComponent(v.replace(/[\uD800-\uDFFF]/g, '')) + '%ED%A0%80';
    }
  };

  it('unknown paths and methods under /v1 are structured 404/405s', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        fc.oneof(edgeString, fc.string({ maxLength: 60 }), fc.constantFrom('rooms/x/y/z/w', 'me/', '../mcp', 'agents//x')),
        async (method, tail) => {
          const path = `/v1/${enc(tail).replace(/%2F/g, '/')}`;
          let res: Response;
          try {
            res = await fetch(s.baseUrl + path, { method, headers: { authorization: `Bearer ${s.ownerToken}` }, body: method === 'GET' ? undefined : '{}' });
          } catch {
            return; // fetch itself refused a malformed URL: nothing reached the server
          }
          expect(res.status).toBeLessThan(500);
          if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) return void res.body?.cancel();
          const text = await res.text();
          if (res.status >= 400) expect((JSON.parse(text) as { error: { error_id: string } }).error.error_id).toMatch(/^err_/);
        },
      ),
      { numRuns: 150, endOnFailure: true },
    );
  });

  it('the event stream answers any query and credential with a stream or a structured error', async () => {
    let streams = 0;
    await fc.assert(
      fc.asyncProperty(
        // Short values: a URL of tens of kilobytes is refused by Node's own parser (431, no body), before the server.
        fc.oneof(edgeString, fc.string({ maxLength: 40 }), fc.constantFrom('', '-1', '0', 'null', '{}', 'x'.repeat(300))),
        fc.oneof({ weight: 3, arbitrary: fc.constant(`Bearer ${s.ownerToken}`) }, { weight: 1, arbitrary: fc.constantFrom('', 'Bearer ', 'Bearer aro_nope', 'Basic abc') }),
        async (value, authorization) => {
          const ac = new AbortController();
          const headers: Record<string, string> = authorization ? { authorization } : {};
          const res = await fetch(`${s.baseUrl}/v1/events?ticket=${enc(value)}&since=${enc(value)}`, { headers, signal: ac.signal });
          try {
            expect(res.status).toBeLessThan(500);
            if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
              expect(res.status).toBe(200);
              streams++;
              return;
            }
            const text = await res.text();
            expect(res.status, text.slice(0, 200)).toBeGreaterThanOrEqual(400);
            expect(text, `${res.status} ${JSON.stringify([...res.headers])}`).not.toBe('');
            const body = JSON.parse(text) as { error?: { code?: string; message?: string; error_id?: string } };
            expect(body.error?.error_id).toMatch(ERROR_ID_RE);
            expect(typeof body.error?.code).toBe('string');
            expect(typeof body.error?.message).toBe('string');
          } finally {
            ac.abort();
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
    expect(streams).toBeGreaterThan(0);
  });
});
