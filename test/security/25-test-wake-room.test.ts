import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { addHuman, runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 47, item 6 (docs/security.md "Test wakes"): `doctor --wake` used to find its room by the
 * name "agent-rooms doctor" among the rooms you are in, so another owner who made a room of that
 * name first and added you got your agent added to her room and woken there. Test wakes now go
 * to the caller's own private Test wakes room, found by its owner, never by a name; nobody else
 * can be added to it or read it.
 */
describe('security: a test wake never lands in a room another owner named', () => {
  const rig = runnerRig('agent-rooms-sec-testwake-', 'Eve Other');

  it('Eve names rooms "agent-rooms doctor" and "Test wakes" and adds Ada: Ada\'s test wake adds her agent to neither and wakes it in her own room', async () => {
    const { s, bob: eve } = rig;
    const eveRooms = [await s.room('agent-rooms doctor', eve.token), await s.room('Test wakes', eve.token)];
    const me = (await s.api('GET', '/v1/me')).body.owner_id as string;
    for (const r of eveRooms) {
      await addHuman(s, r, me, 'admin', eve.token).catch(() => undefined);
      // Ada accepts: the rooms are in her list under the names Eve chose (what the old name lookup found).
      expect((await s.api('POST', `/v1/rooms/${r}/invitation/accept`, {})).status).toBeLessThan(300);
    }
    expect(((await s.api('GET', '/v1/rooms')).body.rooms as Array<{ room_id: string }>).map((r) => r.room_id)).toEqual(expect.arrayContaining(eveRooms));
    const a = await s.agent('Ada tester');
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: [rig.script], env: { RUN_LOG: join(rig.dir, 'ada.log') } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const t = await s.api('POST', '/v1/test-wakes', { plate: a.plate, from: 'doctor' });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    expect(eveRooms).not.toContain(t.body.room_id);
    expect(t.body).toMatchObject({ room_name: 'Test wakes', wake: { plate: a.plate, status: 'queued', target: 'runner' } });
    const done = await waitFor(async () => (await wakesOf(s, a.plate)).find((w) => w.wake_id === t.body.wake.wake_id && w.status === 'handled'), 'the test wake handled');
    expect(done.room).toBe(t.body.room_id);

    // Eve's rooms: no agent of Ada's was added, no wake ran there, no test message was posted.
    for (const r of eveRooms) {
      const m = await s.api('GET', `/v1/rooms/${r}/members`, undefined, eve.token);
      expect(m.body.agents.map((x: { plate: string }) => x.plate)).not.toContain(a.plate);
      expect((await s.api('GET', `/v1/rooms/${r}/wakes`, undefined, eve.token)).body.wakes).toEqual([]);
      expect((await s.api('GET', `/v1/rooms/${r}/messages`, undefined, eve.token)).body.messages).toEqual([]);
    }
    // Every wake of the agent ran in Ada's test room, and a second test reuses the same room.
    expect(new Set((await wakesOf(s, a.plate)).map((w) => w.room))).toEqual(new Set([t.body.room_id]));
    const again = await s.api('POST', '/v1/test-wakes', { plate: a.plate });
    expect(again.body.room_id).toBe(t.body.room_id);

    // The test room is not in Ada's room list; Settings' list names it and its wakes with their handle.
    expect(((await s.api('GET', '/v1/rooms')).body.rooms as Array<{ room_id: string }>).map((r) => r.room_id)).not.toContain(t.body.room_id);
    const listed = await s.api('GET', '/v1/test-wakes');
    expect(listed.body.room_id).toBe(t.body.room_id);
    expect(listed.body.wakes[0]).toMatchObject({ plate: a.plate, handle: a.handle, room: t.body.room_id });
  });

  it('nobody else can be added to the test room, read it, post to it or put an agent in it', async () => {
    const { s, bob: eve } = rig;
    const a = await s.agent('Ada second');
    const t = await s.api('POST', '/v1/test-wakes', { plate: a.plate });
    const room = t.body.room_id as string;
    // Ada herself cannot add Eve, as a member or an admin.
    for (const role of ['member', 'admin']) {
      const add = await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: eve.owner_id, role });
      expect(add.status).toBe(403);
      expect(add.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'test_room' });
      expect(add.body.error.error_id).toMatch(/^err_/);
    }
    expect((await s.api('GET', `/v1/rooms/${room}/members`)).body.humans.map((h: { owner_id: string }) => h.owner_id)).not.toContain(eve.owner_id);
    // Eve: not found, whatever she tries.
    const eveAgent = await s.agent('Eve agent', { token: eve.token });
    expect((await s.api('GET', `/v1/rooms/${room}`, undefined, eve.token)).status).toBe(404);
    expect((await s.api('GET', `/v1/rooms/${room}/messages`, undefined, eve.token)).status).toBe(404);
    expect((await s.api('GET', `/v1/rooms/${room}/wakes`, undefined, eve.token)).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hi' }, eve.token)).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: eveAgent.plate }, eve.token)).status).toBe(404);
    // Eve's agent cannot be test-woken by Ada, nor Ada's by Eve; Eve's own test room is hers.
    expect((await s.api('POST', '/v1/test-wakes', { plate: eveAgent.plate })).status).toBe(404);
    expect((await s.api('POST', '/v1/test-wakes', { plate: a.plate }, eve.token)).status).toBe(404);
    const eveTest = await s.api('POST', '/v1/test-wakes', { plate: eveAgent.plate }, eve.token);
    expect(eveTest.status).toBe(201);
    expect(eveTest.body.room_id).not.toBe(room);
    expect((await s.api('GET', '/v1/test-wakes', undefined, eve.token)).body.wakes.every((w: { room: string }) => w.room === eveTest.body.room_id)).toBe(true);
  });

  it('bad input is a structured error', async () => {
    const r = await rig.s.api('POST', '/v1/test-wakes', { plate: 'x', extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error.error_id).toMatch(/^err_/);
  });
});
