import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { ERROR_ID_RE } from '../helpers/core.js';
import { ERROR_CODES } from '../../shared/errors.js';

/**
 * What only the HTTP adapter does, split out of tests of rules that now run in process
 * (core-human-api, diagnose, files): headers as they cross the wire, the error docs page, a
 * download URL served by the listener.
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
