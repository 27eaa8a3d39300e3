import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { ERROR_ID_RE } from '../helpers/core.js';

/** The /v1 routes the UI overhaul (issue 16) added: human task edit, login links for other owners, every owner's Trust. */
function expectApiError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.error_id).toMatch(ERROR_ID_RE);
}

describe('UI routes (/v1)', () => {
  let s: TestServer;
  let bob: { owner_id: string; token: string };
  let builder: TestAgent;
  let helper: TestAgent;
  let roomId: string;

  beforeAll(async () => {
    s = await startTestServer();
    bob = await s.owner('Bob Other');
    builder = await s.agent('Builder');
    helper = await s.agent('Helper', { token: bob.token });
    roomId = await s.room('Edits');
    await s.join(roomId, builder.plate);
  });
  afterAll(async () => s.stop());

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
