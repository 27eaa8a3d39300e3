import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { purgeTrash } from '../../src-main/core/files/service.js';
import { addHuman } from './helpers.js';

/**
 * Issue 14, item 7 (docs/security.md): only the author's owner or a room admin deletes a file;
 * deletes are soft for a retention period, with a restore route; a purge ends them.
 */
describe('security: deleting files (item 7)', () => {
  let s: TestApp;
  let bob: { owner_id: string; token: string };
  let room: string;
  let mine: Awaited<ReturnType<TestApp['agent']>>;
  let bobs: Awaited<ReturnType<TestApp['agent']>>;
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 1 } });
    bob = await s.owner('Bob Vandal');
    room = await s.room('Files room');
    await addHuman(s, room, bob.owner_id);
    mine = await s.agent('Author');
    bobs = await s.agent('Bob agent', { token: bob.token });
    await s.join(room, mine.plate);
    await s.join(room, bobs.plate, bob.token);
  });
  afterAll(async () => s.stop());

  const filesOf = async (token?: string) => ((await s.api('GET', `/v1/rooms/${room}/files`, undefined, token)).body.files as any[]).map((f) => f.path);

  it("a member of another owner cannot delete someone else's file, by the API or by an agent", async () => {
    const ca = await s.connect(mine.credential);
    const f = await ok(ca, 'write_file', { room, path: 'docs/plan.md', content: 'the plan' });
    const denied = await s.api('DELETE', `/v1/rooms/${room}/files/${f.file_id}`, undefined, bob.token);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'not_file_owner' });
    const cb = await s.connect(bobs.credential);
    const e = await fails(cb, 'delete_file', { room, path: 'docs/plan.md' });
    expect(e).toMatchObject({ code: 'FORBIDDEN', reason: 'not_file_owner' });
    // A file Bob's agent wrote a version of is not Bob's alone either.
    await ok(cb, 'write_file', { room, path: 'docs/plan.md', content: 'the plan, edited by bob' });
    expect((await fails(cb, 'delete_file', { room, path: 'docs/plan.md' })).code).toBe('FORBIDDEN');
    expect(await filesOf()).toContain('docs/plan.md');
    expect((await ok(ca, 'read_file', { room, path: 'docs/plan.md' })).content).toBe('the plan, edited by bob');
  });

  it("the author's owner deletes softly and can restore; so can a room admin", async () => {
    const cb = await s.connect(bobs.credential);
    const ca = await s.connect(mine.credential);
    const own = await ok(cb, 'write_file', { room, path: 'bob/notes.txt', content: 'bob notes v1' });
    await ok(cb, 'write_file', { room, path: 'bob/notes.txt', content: 'bob notes v2' });
    const d = await ok(cb, 'delete_file', { room, path: 'bob/notes.txt' });
    expect(d).toMatchObject({ deleted: true, file_id: own.file_id, versions_deleted: 2 });
    expect(Date.parse(d.restorable_until) - Date.now()).toBeGreaterThan(24 * 3600 * 1000);
    expect(await filesOf()).not.toContain('bob/notes.txt');
    expect((await fails(ca, 'read_file', { room, path: 'bob/notes.txt' })).code).toBe('NOT_FOUND');

    const trash = (await s.api('GET', `/v1/rooms/${room}/deleted-files`, undefined, bob.token)).body.files as any[];
    expect(trash).toHaveLength(1);
    expect(trash[0]).toMatchObject({ file_id: own.file_id, path: 'bob/notes.txt', versions: 2, deleted_by: { kind: 'agent', plate: bobs.plate } });
    const restored = await s.api('POST', `/v1/rooms/${room}/deleted-files/${own.file_id}/restore`, {}, bob.token);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ restored: true, path: 'bob/notes.txt', versions_restored: 2 });
    expect((await ok(ca, 'read_file', { room, path: 'bob/notes.txt' })).content).toBe('bob notes v2');
    expect((await ok(ca, 'read_file', { room, path: 'bob/notes.txt', version: 1 })).content).toBe('bob notes v1');
    expect((await s.api('GET', `/v1/rooms/${room}/deleted-files`)).body.files).toEqual([]);

    // The room admin may delete anyone's file; the restore of a reused path is refused, not merged.
    const del = await s.api('DELETE', `/v1/rooms/${room}/files/${own.file_id}`);
    expect(del.status).toBe(200);
    await ok(cb, 'write_file', { room, path: 'bob/notes.txt', content: 'a new file' });
    const clash = await s.api('POST', `/v1/rooms/${room}/deleted-files/${own.file_id}/restore`, {}, bob.token);
    expect(clash.status).toBe(409);
    expect(clash.body.error.reason).toBe('path_taken');
    // An outsider sees nothing of the room's trash.
    const outsider = await s.owner('Outsider');
    expect((await s.api('GET', `/v1/rooms/${room}/deleted-files`, undefined, outsider.token)).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/deleted-files/${own.file_id}/restore`, {}, outsider.token)).status).toBe(404);
  });

  it('a deleted file is purged after its retention and can no longer be restored', async () => {
    const ca = await s.connect(mine.credential);
    const f = await ok(ca, 'write_file', { room, path: 'tmp/old.txt', content: 'old bytes' });
    const d = await ok(ca, 'delete_file', { room, path: 'tmp/old.txt' });
    expect(purgeTrash(s.running.core, Date.parse(d.restorable_until) - 1000)).toBe(0);
    expect(purgeTrash(s.running.core, Date.parse(d.restorable_until) + 1)).toBeGreaterThanOrEqual(1);
    const r = await s.api('POST', `/v1/rooms/${room}/deleted-files/${f.file_id}/restore`, {});
    expect(r.status).toBe(404);
  });
});
