import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/** Cross-owner Trust per (room, owner), default off (docs/contract.md "Who is who", Trust). */
describe('tasks: cross-owner Trust', () => {
  let s: TestApp;
  let room: string;
  let bea: { owner_id: string; token: string };
  let mine: TestAgent;
  let mine2: TestAgent;
  let theirs: TestAgent;
  let m: AppClient;
  let t: AppClient;
  const count = () => (s.running.core.db.prepare('SELECT COUNT(*) AS n FROM tasks').get() as { n: number }).n;

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    bea = await s.owner('Bea Other');
    room = await s.room('Shared');
    const add = await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' });
    expect(add.status).toBe(201);
    mine = await s.agent('Mine');
    mine2 = await s.agent('Mine Two');
    theirs = await s.agent('Theirs', { token: bea.token });
    await s.join(room, mine.plate);
    await s.join(room, mine2.plate);
    await s.join(room, theirs.plate, bea.token);
    m = await s.connect(mine.credential);
    t = await s.connect(theirs.credential);
  });
  afterAll(async () => s.stop());

  it('the room is cross-owner once agents of two owners are members', async () => {
    const r = await s.api('GET', `/v1/rooms/${room}`);
    expect(r.body.cross_owner).toBe(true);
  });

  it('same-owner tasks are auto, even with Trust off', async () => {
    const task = await ok(m, 'create_task', { room, title: 'own', definition_of_done: 'd', assignee: mine2.handle });
    expect(task.consent_state).toBe('auto');
  });

  it('Trust off: create_task assigned to another owner’s agent is refused at creation (CONSENT_REQUIRED), nothing is created', async () => {
    const before = count();
    const e = await fails(m, 'create_task', { room, title: 'cross', definition_of_done: 'd', assignee: theirs.handle });
    expect([e.code, e.http_status]).toEqual(['CONSENT_REQUIRED', 403]);
    expect(count()).toBe(before);
    const h = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'cross', definition_of_done: 'd', assignee: theirs.handle });
    expect(h.status).toBe(403);
    expect(h.body.error.code).toBe('CONSENT_REQUIRED');
    expect(count()).toBe(before);
    expect((await ok(t, 'list_pending_consents', {})).pending).toEqual([]);
  });

  it('set_room_consent sets only the caller’s owner’s toggle', async () => {
    await ok(m, 'set_room_consent', { room, mode: 'trust_room' });
    expect((await s.api('GET', `/v1/rooms/${room}`)).body.trust).toBe('trust_room');
    expect((await s.api('GET', `/v1/rooms/${room}`, undefined, bea.token)).body.trust).toBe('blocked');
    const e = await fails(m, 'create_task', { room, title: 'cross', definition_of_done: 'd', assignee: theirs.handle });
    expect(e.code).toBe('CONSENT_REQUIRED');
    await ok(m, 'set_room_consent', { room, mode: 'blocked' });
  });

  it('Trust on: the cross-owner task is created accepted, claimable, and its assignee is woken', async () => {
    await ok(t, 'set_room_consent', { room, mode: 'trust_room' });
    const task = await ok(m, 'create_task', { room, title: 'cross ok', definition_of_done: 'd', assignee: theirs.handle });
    expect(task.consent_state).toBe('accepted');
    const wake = s.running.core.db.prepare("SELECT plate FROM wakes WHERE task_id = ? AND trigger = 'assignment'").get(task.task_id) as any;
    expect(wake.plate).toBe(theirs.plate);
    const item = (await ok(t, 'check_mentions', { room })).items.find((i: any) => i.task_id === task.task_id);
    expect(item.trust_level).toBe('trusted');
    expect((await ok(t, 'claim_task', { task_id: task.task_id })).status).toBe('doing');
    await ok(t, 'set_room_consent', { room, mode: 'blocked' });
  });

  it('human reassignment across owners obeys Trust: off refused, on accepted', async () => {
    const task = await ok(m, 'create_task', { room, title: 'to move', definition_of_done: 'd', assignee: mine.handle });
    const off = await s.api('POST', `/v1/rooms/${room}/tasks/${task.task_id}/assign`, { assignee: theirs.handle });
    expect(off.status).toBe(403);
    expect(off.body.error.code).toBe('CONSENT_REQUIRED');
    const still = await s.api('GET', `/v1/rooms/${room}/tasks/${task.task_id}`);
    expect(still.body.assignee).toBe(mine.plate);

    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bea.token)).status).toBe(200);
    const on = await s.api('POST', `/v1/rooms/${room}/tasks/${task.task_id}/assign`, { assignee: theirs.handle });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ assignee: theirs.plate, consent_state: 'accepted', status: 'todo' });
    expect((await fails(m, 'claim_task', { task_id: task.task_id })).reason).toBe('not_assigned');
    expect((await ok(t, 'claim_task', { task_id: task.task_id })).status).toBe('doing');
    await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'blocked' }, bea.token);
  });

  it('in a cross-owner room only a room admin may reassign', async () => {
    const task = await ok(m, 'create_task', { room, title: 'admin only', definition_of_done: 'd', assignee: mine.handle });
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${task.task_id}/assign`, { assignee: mine2.handle }, bea.token);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('FORBIDDEN');
    const a = await s.api('POST', `/v1/rooms/${room}/tasks/${task.task_id}/assign`, { assignee: mine2.handle });
    expect(a.status).toBe(200);
    expect(a.body.assignee).toBe(mine2.plate);
  });

  it('in a solo room the owner of its agents may reassign', async () => {
    const solo = await s.room('Solo', bea.token);
    const b2 = await s.agent('Theirs Two', { token: bea.token });
    await s.join(solo, theirs.plate, bea.token);
    await s.join(solo, b2.plate, bea.token);
    const task = await s.api('POST', `/v1/rooms/${solo}/tasks`, { title: 's', definition_of_done: 'd', assignee: theirs.handle }, bea.token);
    expect(task.status).toBe(201);
    expect(task.body.consent_state).toBe('auto');
    const r = await s.api('POST', `/v1/rooms/${solo}/tasks/${task.body.task_id}/assign`, { assignee: b2.handle }, bea.token);
    expect(r.status).toBe(200);
    expect(r.body.assignee).toBe(b2.plate);
    const outsider = await s.api('POST', `/v1/rooms/${solo}/tasks/${task.body.task_id}/assign`, { assignee: theirs.handle });
    expect(outsider.status).toBe(404);
  });
});
