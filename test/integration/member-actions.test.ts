import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';

/**
 * A room member's allowed_actions (docs/rooms.md "Members"): what GET /v1/rooms/:id/members lists
 * for the owner calling is what the server then lets that owner do. Every listed act succeeds,
 * every act denied (with its reason) is refused and changes nothing.
 */
describe('member allowed_actions', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp();
  });
  afterAll(() => s.stop());

  it('an admin may remove every agent; a plain member only its own; each may leave itself and nobody else', async () => {
    const bea = await s.owner('Bea');
    const room = await s.room('Crew');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' })).status).toBe(201);
    const adaBot = await s.agent('AdaBot');
    const beaBot = await s.agent('BeaBot', { token: bea.token });
    const beaBot2 = await s.agent('BeaBotTwo', { token: bea.token });
    await s.join(room, adaBot.plate);
    await s.join(room, beaBot.plate, bea.token);
    await s.join(room, beaBot2.plate, bea.token);

    const asAda = (await s.api('GET', `/v1/rooms/${room}/members`)).body;
    for (const a of asAda.agents) expect(a.allowed_actions).toEqual(['remove']);
    // Ada is the room's last admin: leaving as asked is refused, naming Bea (the one it may name) works (below).
    const adaSelf = asAda.humans.find((h: { owner_id: string }) => h.owner_id !== bea.owner_id);
    expect(adaSelf).toMatchObject({ allowed_actions: [], denied_actions: { leave: { code: 'last_admin', message: expect.stringMatching(/last admin/) } }, next_admins: [bea.owner_id] });
    const lastAdmin = await s.api('POST', `/v1/rooms/${room}/leave`, {});
    expect(lastAdmin.status).toBe(409);
    expect(lastAdmin.body.error.reason).toBe('last_admin');
    // Whom it may name is next_admins and no one else (rules.ts newAdminRefusal): not itself, not an owner outside the room; a member names nobody.
    const outsider = await s.owner('Outsider');
    for (const other of [adaSelf.owner_id, outsider.owner_id]) {
      const refused = await s.api('POST', `/v1/rooms/${room}/leave`, { new_admin: other });
      expect(refused.status).toBe(400);
      expect(refused.body.error.reason).toBe('bad_new_admin');
    }
    const byMember = await s.api('POST', `/v1/rooms/${room}/leave`, { new_admin: adaSelf.owner_id }, bea.token);
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.reason).toBe('not_room_admin');
    expect((await s.api('GET', `/v1/rooms/${room}/members`)).body.humans.map((h: { role: string }) => h.role)).toEqual(['admin', 'member']);
    expect(asAda.humans.find((h: { owner_id: string }) => h.owner_id === bea.owner_id).allowed_actions).toEqual([]);

    const asBea = (await s.api('GET', `/v1/rooms/${room}/members`, undefined, bea.token)).body;
    const byPlate = new Map(asBea.agents.map((a: { plate: string }) => [a.plate, a]));
    expect((byPlate.get(beaBot.plate) as { allowed_actions: string[] }).allowed_actions).toEqual(['remove']);
    const other = byPlate.get(adaBot.plate) as { allowed_actions: string[]; denied_actions: Record<string, { code: string; message: string }> };
    expect(other.allowed_actions).toEqual([]);
    expect(other.denied_actions.remove).toEqual({ code: 'agent_owner_or_admin_only', message: expect.stringMatching(/owner or a room admin/) });

    // The denied act is refused and changes nothing; the listed ones succeed.
    const refused = await s.api('DELETE', `/v1/rooms/${room}/agents/${adaBot.plate}`, undefined, bea.token);
    expect(refused.status).toBe(403);
    expect((await s.api('GET', `/v1/rooms/${room}/members`)).body.agents).toHaveLength(3);
    expect((await s.api('DELETE', `/v1/rooms/${room}/agents/${beaBot.plate}`, undefined, bea.token)).status).toBe(200);
    expect((await s.api('DELETE', `/v1/rooms/${room}/agents/${beaBot2.plate}`)).status).toBe(200);
    const after = (await s.api('GET', `/v1/rooms/${room}/members`)).body;
    expect(after.agents.map((a: { plate: string }) => a.plate)).toEqual([adaBot.plate]);

    // Bea's own record lists leave, and leaving works.
    const beaSelf = asBea.humans.find((h: { owner_id: string }) => h.owner_id === bea.owner_id);
    expect(beaSelf.allowed_actions).toEqual(['leave']);
    expect(beaSelf.next_admins).toBeUndefined();
    expect((await s.api('POST', `/v1/rooms/${room}/leave`, {}, bea.token)).status).toBe(200);
    // Now the only human: the record says so, and leaving is refused.
    const alone = (await s.api('GET', `/v1/rooms/${room}/members`)).body.humans;
    expect(alone).toHaveLength(1);
    expect(alone[0]).toMatchObject({ allowed_actions: [], denied_actions: { leave: { code: 'only_human', message: expect.stringMatching(/only human/) } } });
    expect((await s.api('POST', `/v1/rooms/${room}/leave`, {})).status).toBe(409);
  });

  it('a room record lists what its caller may do in it: an admin adds humans and edits the workspace, a member is told why not', async () => {
    const cy = await s.owner('Cy');
    const dee = await s.owner('Dee');
    const created = await s.api('POST', '/v1/rooms', { name: 'Hall' });
    expect(created.body.allowed_actions).toEqual(['add_human', 'edit_workspace']);
    const room = created.body.room_id;
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: cy.owner_id, role: 'member' })).status).toBe(201);
    const asCy = (await s.api('GET', `/v1/rooms/${room}`, undefined, cy.token)).body;
    expect(asCy.allowed_actions).toEqual([]);
    expect(asCy.denied_actions.add_human).toEqual({ code: 'admin_only', message: expect.stringMatching(/room admin/) });
    expect(asCy.denied_actions.edit_workspace).toEqual({ code: 'admin_only', message: expect.stringMatching(/room admins/) });
    const listed = (await s.api('GET', '/v1/rooms', undefined, cy.token)).body.rooms.find((r: { room_id: string }) => r.room_id === room);
    expect(listed.allowed_actions).toEqual([]);
    // What is denied is refused: Cy cannot add Dee, nor set the workspace.
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: dee.owner_id, role: 'member' }, cy.token)).status).toBe(403);
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: '/tmp' }, cy.token)).status).toBe(403);
    expect((await s.api('GET', `/v1/rooms/${room}/members`)).body.humans).toHaveLength(2);
  });

  it('agents reading list_members get no allowed_actions (the core tool listing stays as it is)', async () => {
    const room = await s.room('Quiet');
    const bot = await s.agent('Reader');
    await s.join(room, bot.plate);
    const c = await s.connect(bot.credential);
    const r = await c.callTool({ name: 'list_members', arguments: { room } });
    const out = r.structuredContent as { agents: Array<Record<string, unknown>>; humans: Array<Record<string, unknown>> };
    expect(out.agents[0]).not.toHaveProperty('allowed_actions');
    expect(out.humans[0]).not.toHaveProperty('allowed_actions');
  });
});
