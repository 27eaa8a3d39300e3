import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ok } from '../helpers/server.js';
import { ERROR_ID_RE, PLATE_RE, count } from '../helpers/core.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

/** A human API error: status and `{error: {code, message, error_id}}`. */
function expectApiError(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.message).toBeTypeOf('string');
  expect(r.body.error.error_id).toMatch(ERROR_ID_RE);
}

describe('human API (/v1)', () => {
  let s: TestApp;
  let teammate: { owner_id: string; token: string };

  beforeAll(async () => {
    s = await openTestApp({ database: 'home' });
    teammate = await s.owner('Tess Mate');
  });
  afterAll(async () => s.stop());

  it('unauthenticated or bad tokens: 401 with WWW-Authenticate', async () => {
    // Without any Authorization header: test/integration/http-adapter.test.ts.
    for (const token of ['', 'aro_nope', s.ownerToken + 'x']) {
      const r = await s.api('GET', '/v1/me', undefined, token);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(r.body.error.code).toBe('UNAUTHENTICATED');
      expect(r.body.error.error_id).toMatch(ERROR_ID_RE);
    }
    expectApiError(await s.api('POST', '/v1/rooms', { name: 'x' }, 'aro_bad'), 401, 'UNAUTHENTICATED');
    // An agent credential is not an owner token.
    const a = await s.agent('Not An Owner');
    expectApiError(await s.api('GET', '/v1/me', undefined, a.credential), 401, 'UNAUTHENTICATED');
  });

  it('GET /v1/me is the calling owner', async () => {
    const me = await s.api('GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'Ada Owner', handle: '@ada-owner', is_primary: true });
    const them = await s.api('GET', '/v1/me', undefined, teammate.token);
    expect(them.body).toMatchObject({ owner_id: teammate.owner_id, name: 'Tess Mate', is_primary: false });
  });

  it('owners: only the primary owner creates them, every owner reads the directory; the token is shown once', async () => {
    const created = await s.api('POST', '/v1/owners', { name: 'Third Person', plate_prefix: 'THP' });
    expect(created.status).toBe(201);
    expect(created.body.owner).toMatchObject({ name: 'Third Person', plate_prefix: 'THP', is_primary: false });
    expect(created.body.token).toMatch(/^aro_[A-Za-z0-9_-]{43}$/);
    expect((await s.api('GET', '/v1/me', undefined, created.body.token)).body.owner_id).toBe(created.body.owner.owner_id);
    const listed = await s.api('GET', '/v1/owners');
    expect(listed.status).toBe(200);
    expect(listed.body.owners.map((o: any) => o.name)).toEqual(['Ada Owner', 'Tess Mate', 'Third Person']);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token);

    expectApiError(await s.api('POST', '/v1/owners', { name: 'Sneaky' }, teammate.token), 403, 'FORBIDDEN');
    // Owners and their rights are the primary owner's to list; any owner reads the directory
    // of names (to add humans to rooms they administer), with no rights and no tokens in it.
    expectApiError(await s.api('GET', '/v1/owners', undefined, teammate.token), 403, 'FORBIDDEN');
    const seen = await s.api('GET', '/v1/people', undefined, teammate.token);
    expect(seen.status).toBe(200);
    expect(seen.body.people.map((o: any) => o.name)).toEqual(['Ada Owner', 'Tess Mate', 'Third Person']);
    expect(JSON.stringify(seen.body)).not.toContain('aro_');
    expect(JSON.stringify(seen.body)).not.toContain('allow_runners');
    expectApiError(await s.api('POST', '/v1/owners', { name: '' }), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('POST', '/v1/owners', { name: 'X', plate_prefix: 'lower' }), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('POST', '/v1/owners', 'not json'), 400, 'INVALID_ARGUMENT');
  });

  it('agents: create with plate and default scopes, list only one’s own', async () => {
    const a = await s.api('POST', '/v1/agents', { name: 'Planner' });
    expect(a.status).toBe(201);
    expect(a.body.plate).toMatch(PLATE_RE);
    expect(a.body.plate.startsWith('ADAO-AGT-')).toBe(true);
    expect(a.body).toMatchObject({ name: 'Planner', handle: '@planner(ada-owner)', scopes: ['READ', 'WRITE', 'UPLOAD', 'DOWNLOAD', 'INVOKE'] });
    const ro = await s.api('POST', '/v1/agents', { name: 'Watcher', scopes: ['READ'] });
    expect(ro.body.scopes).toEqual(['READ']);
    const t = await s.api('POST', '/v1/agents', { name: 'Planner' }, teammate.token);
    expect(t.status).toBe(201);
    expect(t.body.handle).toBe('@planner(tess-mate)');

    const mine = (await s.api('GET', '/v1/agents')).body.agents.map((x: any) => x.plate);
    expect(mine).toContain(a.body.plate);
    expect(mine).not.toContain(t.body.plate);
    expectApiError(await s.api('GET', `/v1/agents/${t.body.plate}`), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', '/v1/agents', { name: 'Planner' }), 409, 'CONFLICT');
    expectApiError(await s.api('POST', '/v1/agents', { name: 'Bad', scopes: ['ROOT'] }), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('POST', '/v1/agents', {}), 400, 'INVALID_ARGUMENT');
  });

  it('credentials: the secret is shown once and stored only hashed', async () => {
    const a = await s.api('POST', '/v1/agents', { name: 'Secret Keeper' });
    const c = await s.api('POST', `/v1/agents/${a.body.plate}/credentials`, { device: 'laptop' });
    expect(c.status).toBe(201);
    expect(c.body.credential).toMatch(/^ark_[A-Za-z0-9_-]{43}$/);
    expect(c.body.credential_id).toMatch(/^cred_/);
    expect(c.body.device_id).toMatch(/^dev_/);
    expect(c.body.mcp_urls).toEqual({
      generic: `${s.baseUrl}/mcp`,
      'claude-code': `${s.baseUrl}/mcp/claude-code`,
      codex: `${s.baseUrl}/mcp/codex`,
      gemini: `${s.baseUrl}/mcp/gemini`,
      cursor: `${s.baseUrl}/mcp/cursor`,
    });
    // Use it once, so it has passed through every code path that might store it.
    expect((await ok(await s.connect(c.body.credential), 'whoami')).plate).toBe(a.body.plate);

    const list = await s.api('GET', `/v1/agents/${a.body.plate}/credentials`);
    expect(list.body.credentials).toHaveLength(1);
    expect(list.body.credentials[0]).toMatchObject({ credential_id: c.body.credential_id, device: 'laptop', revoked: false });
    expect(JSON.stringify(list.body)).not.toContain(c.body.credential);
    expect(JSON.stringify((await s.api('GET', '/v1/agents')).body)).not.toContain(c.body.credential);

    const files = readdirSync(s.home).filter((f) => f.startsWith('rooms.db'));
    expect(files).toContain('rooms.db');
    const bytes = Buffer.concat(files.map((f) => readFileSync(join(s.home, f))));
    expect(bytes.includes(Buffer.from(c.body.credential))).toBe(false);
    expect(bytes.includes(Buffer.from(c.body.credential.slice(4)))).toBe(false);
    // What is stored is the hash (so the search above looks in the right place).
    expect(bytes.includes(Buffer.from(createHash('sha256').update(c.body.credential).digest('hex')))).toBe(true);
    // The owner token is not in the store either.
    expect(bytes.includes(Buffer.from(s.ownerToken))).toBe(false);

    expectApiError(await s.api('POST', `/v1/agents/${a.body.plate}/credentials`, {}, teammate.token), 404, 'NOT_FOUND');
  });

  it('revocations: listed as revoked; unknown ids are 404', async () => {
    const a = await s.agent('Revokee');
    expect((await s.api('DELETE', `/v1/credentials/${a.credential_id}`)).body).toMatchObject({ revoked: true });
    expect((await s.api('GET', `/v1/agents/${a.plate}/credentials`)).body.credentials[0].revoked).toBe(true);
    expectApiError(await s.api('DELETE', '/v1/credentials/cred_nope'), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', '/v1/devices/dev_nope/revoke'), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', '/v1/agents/ADAO-AGT-000000/revoke'), 404, 'NOT_FOUND');
    expect((await s.api('POST', `/v1/agents/${a.plate}/revoke`)).body).toMatchObject({ revoked: true });
    expect((await s.api('GET', `/v1/agents/${a.plate}`)).body.revoked).toBe(true);
    expectApiError(await s.api('POST', `/v1/agents/${a.plate}/credentials`, {}), 409, 'CONFLICT');
  });

  it('rooms: the creator is admin; only members see a room', async () => {
    const r = await s.api('POST', '/v1/rooms', { name: 'Planning' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'Planning', role: 'admin', trust: 'blocked', cross_owner: false, last_seq: 0 });
    expect(r.body.room_id).toMatch(/^room_/);
    expect((await s.api('GET', '/v1/rooms')).body.rooms.map((x: any) => x.room_id)).toContain(r.body.room_id);
    expect((await s.api('GET', `/v1/rooms/${r.body.room_id}`)).body.name).toBe('Planning');
    expect((await s.api('GET', '/v1/rooms', undefined, teammate.token)).body.rooms.map((x: any) => x.room_id)).not.toContain(r.body.room_id);
    expectApiError(await s.api('GET', `/v1/rooms/${r.body.room_id}`, undefined, teammate.token), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', '/v1/rooms', { name: '' }), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('GET', '/v1/nowhere'), 404, 'NOT_FOUND');
  });

  it('members: who may add whom', async () => {
    const room = await s.room('Members');
    const mine = await s.agent('Helper');
    const theirs = await s.agent('Visitor', { token: teammate.token });
    const third = await s.owner('Outside Owner');
    const outsidersAgent = await s.agent('Stranger', { token: third.token });

    // The teammate is not in the room: cannot see it, cannot add their agent.
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: theirs.plate }, teammate.token), 404, 'NOT_FOUND');
    // The admin cannot add another owner's agent while that owner is absent.
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: theirs.plate }), 403, 'FORBIDDEN');
    // The admin adds their own agent and the teammate as a plain member.
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: mine.plate })).status).toBe(201);
    const added = await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: teammate.owner_id, role: 'member' });
    expect(added.status).toBe(201);
    expect(added.body.humans.map((h: any) => [h.name, h.role])).toEqual([
      ['Ada Owner', 'admin'],
      ['Tess Mate', 'member'],
    ]);
    // A plain member may add their own agent, but not humans, and not someone else's agent.
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: theirs.plate }, teammate.token)).status).toBe(201);
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: third.owner_id, role: 'member' }, teammate.token), 403, 'FORBIDDEN');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: outsidersAgent.plate }, teammate.token), 403, 'FORBIDDEN');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: outsidersAgent.plate }), 403, 'FORBIDDEN');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: 'ADAO-AGT-ZZZZZZ' }), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: 'own_nope', role: 'member' }), 404, 'NOT_FOUND');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: third.owner_id, role: 'king' }), 400, 'INVALID_ARGUMENT');
    // Even once the outside owner is present, only that owner adds their agent (issue 14, docs/security.md item 2).
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: third.owner_id, role: 'member' })).status).toBe(201);
    expectApiError(await s.api('POST', `/v1/rooms/${room}/members`, { plate: outsidersAgent.plate }), 403, 'FORBIDDEN');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: outsidersAgent.plate }, third.token)).status).toBe(201);

    const m = await s.api('GET', `/v1/rooms/${room}/members`, undefined, teammate.token);
    expect(m.body.agents.map((a: any) => a.plate).sort()).toEqual([mine.plate, theirs.plate, outsidersAgent.plate].sort());
    expect((await s.api('GET', `/v1/rooms/${room}`)).body.cross_owner).toBe(true);
    // The agents see the room.
    expect((await ok(await s.connect(theirs.credential), 'list_rooms')).rooms.map((r: any) => r.room_id)).toEqual([room]);
  });

  it('messages: a human posts with structured mentions; history pages backwards', async () => {
    const room = await s.room('Human Talk');
    const a = await s.agent('Listener');
    await s.join(room, a.plate);
    const before = count(s, 'mentions', 'plate = ?', a.plate);
    const posted = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hello @listener(ada-owner)' });
    expect(posted.status).toBe(201);
    expect(posted.body).toMatchObject({ seq: 1, sender: { kind: 'human', handle: '@ada-owner', name: 'Ada Owner' }, mentions: [] });
    expect(count(s, 'mentions', 'plate = ?', a.plate)).toBe(before);
    const mentioned = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'please look', mention_targets: [a.handle] });
    expect(mentioned.body.mentions.map((x: any) => x.plate)).toEqual([a.plate]);
    const inbox = await ok(await s.connect(a.credential), 'check_mentions', { room });
    expect(inbox.items.map((i: any) => [i.message.message_id, i.trust_level, i.message.from.handle])).toEqual([[mentioned.body.message_id, 'same_owner', '@ada-owner']]);
    for (let i = 0; i < 3; i++) await s.api('POST', `/v1/rooms/${room}/messages`, { body: `n${i}` });

    const p1 = await s.api('GET', `/v1/rooms/${room}/messages?limit=2`);
    expect(p1.body.messages.map((m: any) => m.seq)).toEqual([4, 5]);
    const p2 = await s.api('GET', `/v1/rooms/${room}/messages?limit=2&before_seq=${p1.body.next_before_seq}`);
    expect(p2.body.messages.map((m: any) => m.seq)).toEqual([2, 3]);

    expectApiError(await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'x'.repeat(64 * 1024 + 1) }), 413, 'PAYLOAD_TOO_LARGE');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'x'.repeat(300 * 1024) }), 413, 'PAYLOAD_TOO_LARGE');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'x', mention_targets: ['@ghost'] }), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/messages`, {}), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('GET', `/v1/rooms/${room}/messages?limit=0`), 400, 'INVALID_ARGUMENT');
    expectApiError(await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'x' }, teammate.token), 404, 'NOT_FOUND');
    expectApiError(await s.api('GET', `/v1/rooms/${room}/messages`, undefined, teammate.token), 404, 'NOT_FOUND');
    expect(count(s, 'messages', 'room_id = ?', room)).toBe(5);
  });
});
