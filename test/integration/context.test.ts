import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails } from '../helpers/server.js';
import { pruneRoomChanges } from '../../src-main/core/context/service.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

describe('get_room_context', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => s.stop());

  const SECTIONS = ['focus', 'roster', 'my_tasks', 'handoff', 'decisions', 'files', 'workspace', 'cursors'];

  it('a full snapshot holds every section; the same version again is not_modified', async () => {
    const a = await s.agent('Reader');
    const b = await s.agent('Predecessor');
    const room = await s.room('Context room');
    await s.join(room, a.plate);
    await s.join(room, b.plate);
    expect((await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: 'ship the parser' })).status).toBe(200);
    expect((await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'use SQLite' })).status).toBe(201);
    const ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);
    await ok(ca, 'write_file', { room, path: 'notes/plan.md', content: 'the secret plan body' });
    await ok(ca, 'send_message', { room, body: 'hello' });
    // A handoff addressed to the reader: b finishes a task that a's task depends on.
    const t1 = await ok(cb, 'create_task', { room, title: 'Lex', definition_of_done: 'tokens', assignee: b.handle });
    const t2 = await ok(cb, 'create_task', { room, title: 'Parse', definition_of_done: 'ast', assignee: a.handle, depends_on: [t1.task_id] });
    await ok(cb, 'claim_task', { task_id: t1.task_id });
    await ok(cb, 'complete_task', { task_id: t1.task_id, status: 'done', handoff_notes: 'tokens live in lex.ts' });
    await ok(ca, 'claim_task', { task_id: t2.task_id });

    const full = await ok(ca, 'get_room_context', { room });
    expect(full.full).toBe(true);
    for (const k of SECTIONS) expect(full).toHaveProperty(k);
    expect(full.focus.focus).toBe('ship the parser');
    expect(full.decisions.map((d: any) => d.text)).toEqual(['use SQLite']);
    expect(full.files).toEqual([expect.objectContaining({ path: 'notes/plan.md', version: 1, read_with: 'read_file' })]);
    expect(JSON.stringify(full)).not.toContain('the secret plan body');
    expect(full.handoff).toMatchObject({ from_task_id: t1.task_id, to_task_id: t2.task_id, from: b.handle, handoff_notes: 'tokens live in lex.ts' });
    expect(full.my_tasks).toEqual([
      expect.objectContaining({ task_id: t2.task_id, status: 'doing', stale: false, lock: expect.objectContaining({ held: true }) }),
    ]);
    expect(full.roster.agents.map((x: any) => x.handle).sort()).toEqual([a.handle, b.handle].sort());
    expect(full.roster.agents.find((x: any) => x.handle === a.handle).live_instances).toHaveLength(1);
    expect(full.cursors.messages_seq).toBe(1);
    expect(full.workspace).toEqual({ configured: false });
    const room1 = await s.api('GET', `/v1/rooms/${room}`);
    expect(full.context_version).toBe(room1.body.context_version);

    const again = await ok(ca, 'get_room_context', { room, since_version: full.context_version });
    expect(again).toEqual({ not_modified: true, context_version: full.context_version });
  });

  it('a delta carries only the classes that changed', async () => {
    const a = await s.agent('Delta');
    const room = await s.room('Delta room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const v0 = (await ok(c, 'get_room_context', { room })).context_version;

    await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: 'tests first' });
    const d1 = await ok(c, 'get_room_context', { room, since_version: v0 });
    expect(d1).toMatchObject({ full: false, since_version: v0, changed: ['focus'], focus: { focus: 'tests first' } });
    for (const k of SECTIONS.filter((x) => x !== 'focus')) expect(d1).not.toHaveProperty(k);

    await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'no mocks' });
    await ok(c, 'send_message', { room, body: 'noted' });
    const d2 = await ok(c, 'get_room_context', { room, since_version: d1.context_version });
    expect(d2.changed).toEqual(['decisions', 'messages']);
    expect(d2.decisions.map((x: any) => x.text)).toEqual(['no mocks']);
    expect(d2.cursors).toEqual({ messages_seq: 1 });
    for (const k of ['focus', 'roster', 'my_tasks', 'handoff', 'files', 'workspace']) expect(d2).not.toHaveProperty(k);

    // From the older cursor, both changes show.
    const d3 = await ok(c, 'get_room_context', { room, since_version: v0 });
    expect(d3.changed).toEqual(['decisions', 'focus', 'messages']);
  });

  it('a cursor older than the retained 1,000 versions gets a full snapshot; old delta rows are pruned', async () => {
    const a = await s.agent('Late');
    const room = await s.room('Long room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const v0 = (await ok(c, 'get_room_context', { room })).context_version;
    for (let i = 0; i < 1000; i++) await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: `focus ${i}` });
    // Exactly at the edge of the history: still a delta.
    const edge = await ok(c, 'get_room_context', { room, since_version: v0 });
    expect(edge).toMatchObject({ full: false, changed: ['focus'] });
    await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: 'one more' });
    const past = await ok(c, 'get_room_context', { room, since_version: v0 });
    expect(past.full).toBe(true);
    for (const k of SECTIONS) expect(past).toHaveProperty(k);
    expect(past.focus.focus).toBe('one more');
    // A cursor from the future (e.g. another server's) also gets a snapshot.
    expect((await ok(c, 'get_room_context', { room, since_version: past.context_version + 5 })).full).toBe(true);

    const db = s.running.core.db;
    pruneRoomChanges(db);
    const kept = db.prepare('SELECT MIN(version) AS lo, COUNT(DISTINCT version) AS n FROM room_changes WHERE room_id = ?').get(room) as any;
    expect(kept.n).toBe(1000);
    expect(kept.lo).toBe(past.context_version - 999);
  });

  it('only members may read it; focus and decisions are set and read by the room humans', async () => {
    const a = await s.agent('Outsider');
    const room = await s.room('Private room');
    const c = await s.connect(a.credential);
    expect((await fails(c, 'get_room_context', { room })).code).toBe('NOT_MEMBER');

    expect((await s.api('GET', `/v1/rooms/${room}/focus`)).body).toMatchObject({ focus: null });
    const put = await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: '  release 1.0  ' });
    expect(put.body).toMatchObject({ room, focus: 'release 1.0' });
    expect((await s.api('GET', `/v1/rooms/${room}/focus`)).body.focus).toBe('release 1.0');
    expect((await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: '' })).body.focus).toBeNull();
    await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'first' });
    await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'second' });
    expect((await s.api('GET', `/v1/rooms/${room}/decisions`)).body.decisions.map((d: any) => d.text)).toEqual(['first', 'second']);
    expect((await s.api('POST', `/v1/rooms/${room}/decisions`, { text: '   ' })).status).toBe(400);
    expect((await s.api('POST', `/v1/rooms/${room}/decisions`, {})).status).toBe(400);

    const stranger = await s.owner('Stranger');
    expect((await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: 'hijack' }, stranger.token)).status).toBe(404);
    expect((await s.api('GET', `/v1/rooms/${room}/decisions`, undefined, stranger.token)).status).toBe(404);
  });
});
