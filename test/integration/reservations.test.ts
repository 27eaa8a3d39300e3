import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ok, type TestAgent } from '../helpers/server.js';
import { count, expectToolError, waitFor } from '../helpers/core.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

/** Path reservations through the official MCP client on a real server (issue 19). */
describe('path reservations', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 1 }, database: 'home', background: true });
  });
  afterAll(async () => s.stop());

  async function roomWith(name: string, ...agents: TestAgent[]): Promise<string> {
    const room = await s.room(name);
    for (const a of agents) await s.join(room, a.plate);
    return room;
  }

  it('reserves, refuses a conflicting exclusive reservation naming the holder, lets shared ones coexist, releases', async () => {
    const a = await s.agent('Ann');
    const b = await s.agent('Bob');
    const room = await roomWith('Reserve', a, b);
    const ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);

    const got = await ok(ca, 'reserve_paths', { room, paths: ['src/**'], reason: 'refactor', ttl_s: 600 });
    expect(got.granted).toBe(true);
    expect(got.reservations).toEqual([
      expect.objectContaining({ pattern: 'src/**', exclusive: true, holder: a.handle, plate: a.plate, state: 'active', reason: 'refactor' }),
    ]);
    const ttl = Date.parse(got.reservations[0].expires_at) - Date.parse(got.reservations[0].granted_at);
    expect(ttl).toBe(600_000);

    const e = await expectToolError(s, cb, 'reserve_paths', { room, paths: ['lib/x.ts', 'src/api/routes.ts'] }, 'CONFLICT');
    expect(e.reason).toBe('paths_reserved');
    expect(e.details.conflicts).toEqual([
      {
        pattern: 'src/api/routes.ts',
        holder: a.handle,
        plate: a.plate,
        held_pattern: 'src/**',
        exclusive: true,
        expires_at: got.reservations[0].expires_at,
        reservation_id: got.reservations[0].reservation_id,
        task_id: null,
      },
    ]);
    // All or nothing: lib/x.ts was not granted either.
    expect((await ok(cb, 'list_reservations', { room })).reservations.map((r: any) => r.pattern)).toEqual(['src/**']);

    // Shared coexists with shared; an exclusive ask against shared holders conflicts.
    const s1 = await ok(ca, 'reserve_paths', { room, paths: ['docs/**'], exclusive: false });
    await ok(cb, 'reserve_paths', { room, paths: ['docs/guide.md'], exclusive: false });
    await expectToolError(s, cb, 'reserve_paths', { room, paths: ['docs/other.md'] }, 'CONFLICT');

    const covering = await ok(cb, 'list_reservations', { room, path: 'src/api/routes.ts' });
    expect(covering.path).toBe('src/api/routes.ts');
    expect(covering.reservations.map((r: any) => r.pattern)).toEqual(['src/**']);

    const rel = await ok(ca, 'release_paths', { room, paths: ['src/**'] });
    expect(rel.released).toEqual([got.reservations[0].reservation_id]);
    await ok(cb, 'reserve_paths', { room, paths: ['src/api/routes.ts'] });
    // Someone else's reservation is not yours to release.
    await expectToolError(s, cb, 'release_paths', { room, reservation_ids: [s1.reservations[0].reservation_id] }, 'NOT_FOUND');
    await expectToolError(s, cb, 'reserve_paths', { room, paths: ['!src/**'] }, 'INVALID_ARGUMENT');
  });

  it('scopes and membership: READ lists but cannot reserve; a non-member cannot see the room', async () => {
    const a = await s.agent('Reader', { scopes: ['READ'] });
    const out = await s.agent('Outsider');
    const room = await roomWith('Scopes', a);
    const ca = await s.connect(a.credential);
    await ok(ca, 'list_reservations', { room });
    await expectToolError(s, ca, 'reserve_paths', { room, paths: ['a.ts'] }, 'SCOPE_MISSING');
    const co = await s.connect(out.credential);
    await expectToolError(s, co, 'list_reservations', { room }, 'NOT_MEMBER');
    await expectToolError(s, co, 'reserve_paths', { room, paths: ['a.ts'] }, 'NOT_MEMBER');
  });

  it('20 sessions racing for one exclusive pattern: exactly one wins', async () => {
    const agents = await Promise.all(Array.from({ length: 20 }, (_v, i) => s.agent(`Racer${i}`)));
    const room = await roomWith('Race', ...agents);
    const clients = await Promise.all(agents.map((a) => s.connect(a.credential)));
    const results: any[] = await Promise.all(clients.map((c) => c.callTool({ name: 'reserve_paths', arguments: { room, paths: ['src/shared/config.ts'] } })));
    const winners = results.filter((r) => !r.isError);
    const losers = results.filter((r) => r.isError);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(19);
    const winner = winners[0].structuredContent.reservations[0];
    for (const l of losers) {
      expect(l.structuredContent.error).toMatchObject({ code: 'CONFLICT', reason: 'paths_reserved' });
      expect(l.structuredContent.error.details.conflicts[0].plate).toBe(winner.plate);
    }
    expect(count(s, 'path_reservations', 'room_id = ?', room)).toBe(1);
  });

  it('wait: true queues; a release grants the waiter once and wakes it with trigger paths_free', async () => {
    const a = await s.agent('Holder', { scopes: ['READ', 'WRITE', 'INVOKE'] });
    const b = await s.agent('Waiter', { scopes: ['READ', 'WRITE', 'INVOKE'] });
    const room = await roomWith('Wait', a, b);
    const ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);
    const held = await ok(ca, 'reserve_paths', { room, paths: ['src/**'] });
    const queued = await ok(cb, 'reserve_paths', { room, paths: ['src/a.ts'], wait: true, ttl_s: 300 });
    expect(queued).toMatchObject({ granted: false, queued: true });
    expect(queued.conflicts[0]).toMatchObject({ holder: a.handle, held_pattern: 'src/**' });
    expect(queued.reservations[0].state).toBe('waiting');
    expect((await ok(ca, 'list_reservations', { room })).waiting.map((r: any) => r.plate)).toEqual([b.plate]);
    expect(count(s, 'wakes', "plate = ? AND trigger = 'paths_free'", b.plate)).toBe(0);

    await ok(ca, 'release_paths', { room, reservation_ids: [held.reservations[0].reservation_id] });
    const list = await ok(cb, 'list_reservations', { room });
    expect(list.waiting).toEqual([]);
    expect(list.reservations).toEqual([expect.objectContaining({ reservation_id: queued.reservations[0].reservation_id, state: 'active', plate: b.plate })]);
    const r = list.reservations[0];
    expect(Date.parse(r.expires_at) - Date.parse(r.granted_at)).toBe(300_000);

    // One wake, with the reservation as its payload; releasing more does not wake again.
    await ok(ca, 'reserve_paths', { room, paths: ['other/**'] });
    await ok(ca, 'release_paths', { room, paths: ['other/**'] });
    expect(count(s, 'wakes', "plate = ? AND trigger = 'paths_free'", b.plate)).toBe(1);
    const wakes = await s.api('GET', `/v1/rooms/${room}/wakes`);
    const w = (wakes.body.wakes ?? wakes.body).find((x: any) => x.trigger === 'paths_free');
    expect(w).toMatchObject({ plate: b.plate, trigger: 'paths_free' });
    const db = new Database(join(s.home, 'rooms.db'), { readonly: true });
    try {
      const row = db.prepare("SELECT content FROM wakes WHERE plate = ? AND trigger = 'paths_free'").get(b.plate) as { content: string };
      expect(JSON.parse(row.content).reservations).toEqual([expect.objectContaining({ reservation_id: r.reservation_id, pattern: 'src/a.ts', state: 'active' })]);
    } finally {
      db.close();
    }
  });

  it('a reservation tied to a task ends when the task completes, and when it is cancelled', async () => {
    const a = await s.agent('Worker');
    const room = await roomWith('Tasks', a);
    const ca = await s.connect(a.credential);
    const t = await ok(ca, 'create_task', { room, title: 'Edit routes', definition_of_done: 'done', assignee: a.handle });
    await ok(ca, 'claim_task', { task_id: t.task_id });
    await ok(ca, 'reserve_paths', { room, paths: ['src/api/**'], task_id: t.task_id });
    await ok(ca, 'reserve_paths', { room, paths: ['README.md'] });
    expect((await s.api('GET', `/v1/rooms/${room}/reservations`)).body.reservations.map((r: any) => r.task_id)).toEqual([t.task_id, null]);
    await ok(ca, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'routes edited' });
    const after = await s.api('GET', `/v1/rooms/${room}/reservations`);
    expect(after.body.reservations.map((r: any) => r.pattern)).toEqual(['README.md']);
    await waitFor(async () => (await s.api('GET', `/v1/rooms/${room}/reservations`)).body.released.some((x: any) => x.cause === 'task_ended'), 'the release record');

    const t2 = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Second', definition_of_done: 'x', assignee: a.plate });
    await ok(ca, 'reserve_paths', { room, paths: ['lib/**'], task_id: t2.body.task_id });
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t2.body.task_id}/cancel`)).status).toBe(200);
    expect((await ok(ca, 'list_reservations', { room })).reservations.map((r: any) => r.pattern)).toEqual(['README.md']);
    // A finished task cannot take new reservations.
    await expectToolError(s, ca, 'reserve_paths', { room, paths: ['x/**'], task_id: t.task_id }, 'CONFLICT');
  });

  it('a task whose lease went stale releases its reservations', async () => {
    const a = await s.agent('Stale');
    const room = await roomWith('Stale', a);
    const ca = await s.connect(a.credential);
    const t = await ok(ca, 'create_task', { room, title: 'Long edit', definition_of_done: 'done', assignee: a.handle });
    await ok(ca, 'claim_task', { task_id: t.task_id });
    await ok(ca, 'reserve_paths', { room, paths: ['src/**'], task_id: t.task_id });
    // The lease's last renewal moves three minutes into the past (past the 120 s stale limit).
    const db = new Database(join(s.home, 'rooms.db'));
    try {
      db.prepare('UPDATE tasks SET lease_renewed_at = ? WHERE id = ?').run(Date.now() - 180_000, t.task_id);
    } finally {
      db.close();
    }
    expect((await ok(ca, 'list_reservations', { room })).reservations).toEqual([]);
  });

  it('an agent removed from the room loses its reservations at once, and a waiter behind it is granted', async () => {
    const a = await s.agent('Leaver', { scopes: ['READ', 'WRITE', 'INVOKE'] });
    const b = await s.agent('Stayer', { scopes: ['READ', 'WRITE', 'INVOKE'] });
    const room = await roomWith('Leave', a, b);
    const ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);
    await ok(ca, 'reserve_paths', { room, paths: ['src/**'] });
    const queued = await ok(cb, 'reserve_paths', { room, paths: ['src/x.ts'], wait: true });
    expect((await s.api('DELETE', `/v1/rooms/${room}/agents/${a.plate}`)).status).toBe(200);
    expect((await ok(cb, 'list_reservations', { room, path: 'src/main.ts' })).reservations.map((r: any) => r.plate)).not.toContain(a.plate);
    await waitFor(async () => (await ok(cb, 'list_reservations', { room })).reservations.some((r: any) => r.reservation_id === queued.reservations[0].reservation_id), 'the waiter to be granted');
    expect(count(s, 'reservation_releases', "room_id = ? AND cause = 'holder_left'", room)).toBe(1);
    expect(count(s, 'wakes', "plate = ? AND trigger = 'paths_free'", b.plate)).toBe(1);
  });

  it('TTLs run on server time: an expired reservation vanishes from reads and is pruned with a record', async () => {
    const a = await s.agent('Brief');
    const room = await roomWith('Expiry', a);
    const ca = await s.connect(a.credential);
    const got = await ok(ca, 'reserve_paths', { room, paths: ['tmp/**'], ttl_s: 1 });
    const end = Date.parse(got.reservations[0].expires_at);
    await waitFor(() => Date.now() > end, 'the TTL to pass');
    expect((await ok(ca, 'list_reservations', { room })).reservations).toEqual([]);
    await waitFor(() => count(s, 'path_reservations', 'room_id = ?', room) === 0, 'the sweep to prune it');
    expect(count(s, 'reservation_releases', "room_id = ? AND cause = 'expired'", room)).toBe(1);
    // renew_paths on a gone reservation says so.
    await expectToolError(s, ca, 'renew_paths', { room, reservation_ids: [got.reservations[0].reservation_id], ttl_s: 60 }, 'NOT_FOUND');
  });

  it('renew_paths extends from now', async () => {
    const a = await s.agent('Renewer');
    const room = await roomWith('Renew', a);
    const ca = await s.connect(a.credential);
    const got = await ok(ca, 'reserve_paths', { room, paths: ['a/**'], ttl_s: 60 });
    const renewed = await ok(ca, 'renew_paths', { room, reservation_ids: [got.reservations[0].reservation_id], ttl_s: 7200 });
    expect(Date.parse(renewed.reservations[0].expires_at)).toBeGreaterThan(Date.parse(got.reservations[0].expires_at) + 7000_000);
  });

  it('get_room_context carries a reservations section, and a delta after reserve and release', async () => {
    const a = await s.agent('Ctx');
    const room = await roomWith('Ctx', a);
    const ca = await s.connect(a.credential);
    const full = await ok(ca, 'get_room_context', { room });
    expect(full.reservations).toEqual([]);
    const got = await ok(ca, 'reserve_paths', { room, paths: ['src/**'] });
    const d1 = await ok(ca, 'get_room_context', { room, since_version: full.context_version });
    expect(d1.changed).toEqual(['reservations']);
    expect(d1.reservations).toEqual([
      { reservation_id: got.reservations[0].reservation_id, holder: a.handle, pattern: 'src/**', exclusive: true, task_id: null, expires_at: got.reservations[0].expires_at },
    ]);
    expect(d1).not.toHaveProperty('my_tasks');
    await ok(ca, 'release_paths', { room, reservation_ids: [got.reservations[0].reservation_id] });
    const d2 = await ok(ca, 'get_room_context', { room, since_version: d1.context_version });
    expect(d2.changed).toEqual(['reservations']);
    expect(d2.reservations).toEqual([]);
  });

  it('a room admin force-releases with a reason, recorded; a member who is not admin cannot', async () => {
    const a = await s.agent('Hog');
    const room = await roomWith('Force', a);
    const ca = await s.connect(a.credential);
    const got = await ok(ca, 'reserve_paths', { room, paths: ['**'] });
    const id = got.reservations[0].reservation_id;
    const other = await s.owner('Member Mo');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: other.owner_id, role: 'member' })).status).toBeLessThan(300);
    const refused = await s.api('POST', `/v1/rooms/${room}/reservations/${id}/release`, { reason: 'mine now' }, other.token);
    expect(refused.status).toBe(403);
    expect((await s.api('POST', `/v1/rooms/${room}/reservations/${id}/release`, {})).status).toBe(400);
    const done = await s.api('POST', `/v1/rooms/${room}/reservations/${id}/release`, { reason: 'holder crashed' });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ reservation_id: id, cause: 'force_released', reason: 'holder crashed', by_kind: 'human' });
    const view = await s.api('GET', `/v1/rooms/${room}/reservations`);
    expect(view.body.reservations).toEqual([]);
    expect(view.body.released[0]).toMatchObject({ reservation_id: id, cause: 'force_released', reason: 'holder crashed' });
    expect(view.body.can_force_release).toBe(true);
    expect((await s.api('POST', `/v1/rooms/${room}/reservations/${id}/release`, { reason: 'again' })).status).toBe(404);
  });
});

describe('path reservations across a restart', () => {
  it('a restart keeps every live reservation', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-rsv-'));
    try {
      let s = await openTestApp({ home, database: 'home' });
      const a = await s.agent('Keeper');
      const room = await s.room('Restart');
      await s.join(room, a.plate);
      const c = await s.connect(a.credential);
      const got = await ok(c, 'reserve_paths', { room, paths: ['src/**', 'docs/'] });
      await s.stop();
      s = await openTestApp({ home, database: 'home' });
      const c2 = await s.connect(a.credential);
      const list = await ok(c2, 'list_reservations', { room });
      expect(list.reservations.map((r: any) => r.reservation_id)).toEqual(got.reservations.map((r: any) => r.reservation_id));
      expect(list.reservations.map((r: any) => r.pattern)).toEqual(['src/**', 'docs/**']);
      await s.stop();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
