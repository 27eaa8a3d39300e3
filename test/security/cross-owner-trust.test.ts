import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { addHuman, wakesOf } from './helpers.js';

/**
 * Issue 14, item 2 (docs/security.md): waking or assigning another owner's agent needs that
 * owner's Trust whatever the room's mix of agents; an agent joins a room only by its own
 * owner's action; a human can leave a room; the inbox trust_level says what it is.
 */
describe('security: Trust across owners (item 2)', () => {
  let s: TestApp;
  let bob: { owner_id: string; token: string };
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 1 } });
    bob = await s.owner('Bob Intruder');
  });
  afterAll(async () => s.stop());

  /** A room of the primary owner holding only its agents, with Bob as a plain member. */
  async function soloRoomWithBob(name: string) {
    const a = await s.agent(`${name} agent`);
    const room = await s.room(name);
    await s.join(room, a.plate);
    await addHuman(s, room, bob.owner_id);
    expect((await s.api('GET', `/v1/rooms/${room}`)).body.cross_owner).toBe(false);
    return { a, room };
  }

  it("a human of another owner cannot wake an agent in a room holding only that agent's owner's agents", async () => {
    const { a, room } = await soloRoomWithBob('Solo wake');
    const msg = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'wake for me', mention_targets: [a.handle] }, bob.token);
    expect(msg.status).toBe(201);
    expect(await wakesOf(s, a.plate)).toEqual([]);
    const c = await s.connect(a.credential);
    const inbox = await ok(c, 'check_mentions', { room });
    // The inbox says who it is: another owner without Trust, not the agent's own owner.
    expect(inbox.items.map((i: any) => [i.message.body, i.trust_level])).toEqual([['wake for me', 'untrusted']]);

    // With the owner's Trust on, the same mention wakes, and the inbox says trusted.
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' })).status).toBe(200);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'now trusted', mention_targets: [a.handle] }, bob.token);
    expect((await wakesOf(s, a.plate)).length).toBe(1);
    const again = await ok(c, 'check_mentions', { room });
    expect(again.items.map((i: any) => [i.message.body, i.trust_level])).toContainEqual(['now trusted', 'trusted']);
    // The owner's own mention stays same_owner.
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'from my owner', mention_targets: [a.handle] });
    expect((await ok(c, 'check_mentions', { room })).items.map((i: any) => [i.message.body, i.trust_level])).toContainEqual(['from my owner', 'same_owner']);
  });

  it("an agent of another owner cannot wake it either, and a human of another owner cannot assign it work", async () => {
    const { a, room } = await soloRoomWithBob('Solo assign');
    const bobs = await s.agent('Bob helper', { token: bob.token });
    await s.join(room, bobs.plate, bob.token);
    const cb = await s.connect(bobs.credential);
    await ok(cb, 'send_message', { room, body: 'agent to agent', mention_targets: [a.handle] });
    expect(await wakesOf(s, a.plate)).toEqual([]);
    const task = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Do my work', definition_of_done: 'done', assignee: a.plate }, bob.token);
    expect(task.status).toBe(403);
    expect(task.body.error.code).toBe('CONSENT_REQUIRED');
    const t = await fails(cb, 'create_task', { room, title: 'Via agent', definition_of_done: 'done', assignee: a.handle });
    expect(t.code).toBe('CONSENT_REQUIRED');
    expect(await wakesOf(s, a.plate)).toEqual([]);
  });

  it("a room admin of another owner cannot pull someone's agent into a room", async () => {
    const bobsAgent = await s.agent('Bob private', { token: bob.token });
    const room = await s.room('Pull-in room');
    await addHuman(s, room, bob.owner_id);
    const r = await s.api('POST', `/v1/rooms/${room}/members`, { plate: bobsAgent.plate });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'not_agent_owner' });
    expect((await s.api('GET', `/v1/rooms/${room}/members`)).body.agents).toEqual([]);
    // Its own owner may.
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: bobsAgent.plate }, bob.token)).status).toBe(201);
  });

  it('a human can leave a room; the last admin must name another first; a member cannot promote on the way out', async () => {
    const room = await s.room('Leave room');
    await addHuman(s, room, bob.owner_id);
    const bobsAgent = await s.agent('Bob leaver', { token: bob.token });
    await s.join(room, bobsAgent.plate, bob.token);
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bob.token)).status).toBe(200);
    const me = (await s.api('GET', '/v1/me')).body;

    // A member may not name an admin.
    const promote = await s.api('POST', `/v1/rooms/${room}/leave`, { new_admin: me.owner_id }, bob.token);
    expect(promote.status).toBe(403);
    // The last admin may not simply leave.
    const last = await s.api('POST', `/v1/rooms/${room}/leave`, {});
    expect(last.status).toBe(409);
    expect(last.body.error).toMatchObject({ code: 'CONFLICT', reason: 'last_admin' });
    expect((await s.api('POST', `/v1/rooms/${room}/leave`, { new_admin: 'own_nobody' })).status).toBe(400);

    // Bob leaves: his agent and his Trust leave with him.
    const left = await s.api('POST', `/v1/rooms/${room}/leave`, {}, bob.token);
    expect(left.status).toBe(200);
    expect(left.body).toMatchObject({ left: true, room });
    expect((await s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).status).toBe(404);
    const members = (await s.api('GET', `/v1/rooms/${room}/members`)).body;
    expect(members.humans.map((h: any) => h.owner_id)).toEqual([me.owner_id]);
    expect(members.agents).toEqual([]);
    const cb = await s.connect(bobsAgent.credential);
    expect((await fails(cb, 'read_room', { room })).code).toBe('NOT_MEMBER');

    // Back in, the admin names him admin and leaves.
    await addHuman(s, room, bob.owner_id);
    expect((await s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).body.trust).toBe('blocked');
    const handover = await s.api('POST', `/v1/rooms/${room}/leave`, { new_admin: bob.owner_id });
    expect(handover.status).toBe(200);
    expect((await s.api('GET', `/v1/rooms/${room}`, undefined, bob.token)).body.role).toBe('admin');
    expect((await s.api('GET', `/v1/rooms/${room}`)).status).toBe(404);
  });
});
