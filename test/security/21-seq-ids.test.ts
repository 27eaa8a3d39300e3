// Ids that carry their row (docs/performance.md, "Ids that carry their row"; migrations 0015, 0016):
// a message's, wake's and inbox item's id now names the row it is stored in. Each attack is made by
// an owner with their own token and agent, holding another owner's ids (leaked, or carried in a
// shared room's history) or ids forged from them: finding the row by its number must never stand in
// for the checks that follow, and a forged id must find nothing.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fails, ok, startTestServer, type TestAgent, type TestServer } from '../helpers/server.js';
import { seqId, seqOfId } from '../../src-main/core/util/ids.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer, LOOP_HELD_MAX_MS } from '../helpers/loop-probe.js';

/** The same id with its random tail changed: it still carries the row's number. */
const forge = (id: string) => id.slice(0, -4) + (id.endsWith('zzzz') ? '0000' : 'zzzz');

describe('security: ids that carry their row', () => {
  let s: TestServer;
  // The victim: the primary owner, two agents in a room, one mentioning the other (a parked wake, an inbox item).
  let victimRoom: string;
  let victimMessage: string;
  let victimWake: string;
  let victimItem: string;
  let victimReader: Client;
  // The attacker: another owner with an agent in a room of its own.
  let attacker: { token: string; agent: TestAgent; room: string; c: Client };

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    victimRoom = await s.room('Victim room');
    const writer = await s.agent('Victim Writer');
    const reader = await s.agent('Victim Reader');
    await s.join(victimRoom, writer.plate);
    await s.join(victimRoom, reader.plate);
    const w = await s.connect(writer.credential);
    const sent = await ok<{ message_id: string; wakes: Array<{ wake_id: string | null }> }>(w, 'send_message', {
      room: victimRoom,
      body: 'private plan',
      mention_targets: [reader.handle],
    });
    victimMessage = sent.message_id;
    victimWake = sent.wakes[0]!.wake_id!;
    victimReader = await s.connect(reader.credential);
    const inbox = await ok<{ items: Array<{ mention_id: string }> }>(victimReader, 'check_mentions', {});
    victimItem = inbox.items[0]!.mention_id;
    for (const [prefix, id] of [['msg', victimMessage], ['wake', victimWake], ['mnt', victimItem]] as const) expect(seqOfId(prefix, id), id).toBeGreaterThan(0);

    const owner = await s.owner('Mallory');
    const agent = await s.agent('Mallory Agent', { token: owner.token });
    const room = await s.room('Mallory room', owner.token);
    await s.join(room, agent.plate, owner.token);
    attacker = { token: owner.token, agent, room, c: await s.connect(agent.credential) };
  });
  afterAll(async () => s?.stop());

  it("another owner's wake, by its id or a forged one, is not found for any action: the same 404 either way", async () => {
    for (const id of [victimWake, forge(victimWake)]) {
      for (const action of ['retry', 'release', 'drop', 'stop']) {
        const r = await s.api('POST', `/v1/wakes/${id}/${action}`, {}, attacker.token);
        expect(r.status, `${action} ${id}`).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
        expect(r.body.error.error_id).toMatch(/^err_/);
      }
    }
    // The row's number alone finds nothing, even for the wake's own owner: the forged id is unknown, the real one is found (and is not held).
    expect((await s.api('POST', `/v1/wakes/${forge(victimWake)}/drop`, {})).status).toBe(404);
    expect((await s.api('POST', `/v1/wakes/${victimWake}/drop`, {})).body.error.reason).toBe('not_held');
    // The owner's own view is untouched.
    const log = await s.api('GET', `/v1/rooms/${victimRoom}/wakes`);
    expect(log.body.wakes.find((x: { wake_id: string }) => x.wake_id === victimWake)?.status).toBe('queued');
  });

  it("a reply to another room's message, by its id or a forged one, is refused and writes nothing", async () => {
    for (const parent of [victimMessage, forge(victimMessage)]) {
      const e = await fails(attacker.c, 'send_message', { room: attacker.room, body: 'reply', parent_id: parent });
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.reason).toBe('unknown_parent');
      expect(e.error_id).toMatch(/^err_/);
    }
    const mine = await s.api('GET', `/v1/rooms/${attacker.room}/messages`, undefined, attacker.token);
    expect(mine.body.messages).toEqual([]);
    // In the victim's own room, a forged id of its own message is no parent either; the real one is.
    expect((await fails(victimReader, 'send_message', { room: victimRoom, body: 'reply', parent_id: forge(victimMessage) })).reason).toBe('unknown_parent');
    expect((await ok<{ parent_id: string }>(victimReader, 'send_message', { room: victimRoom, body: 'reply', parent_id: victimMessage })).parent_id).toBe(victimMessage);
  });

  it("acknowledging another agent's inbox item, by its id or a forged one, clears nothing", async () => {
    await ok(attacker.c, 'send_message', { room: attacker.room, body: 'done', ack_mention_ids: [victimItem, forge(victimItem)] });
    const inbox = await ok<{ items: Array<{ mention_id: string }> }>(victimReader, 'check_mentions', {});
    expect(inbox.items.map((i) => i.mention_id)).toContain(victimItem);
    // And the victim's own agent acknowledging a forged id of its own item clears nothing either.
    await ok(victimReader, 'send_message', { room: victimRoom, body: 'noted', ack_mention_ids: [forge(victimItem)] });
    const still = await ok<{ items: Array<{ mention_id: string }> }>(victimReader, 'check_mentions', {});
    expect(still.items.map((i) => i.mention_id)).toContain(victimItem);
  });

  it('the most ids one call may name, each carrying a row number and each looked up, hold the event loop briefly and clear nothing of others', async () => {
    // 500 ack ids (the schema's most), half forged from the victim's item, half minted for rows far ahead; the victim's inbox is read after.
    const ids = Array.from({ length: 500 }, (_x, i) => (i % 2 ? forge(victimItem).slice(0, -3) + String(i).padStart(3, '0') : seqId('mnt', 1_000_000 + i)));
    const health = await startHealthServer();
    try {
      const p = await probeLoopAndRequest(() => ok(attacker.c, 'send_message', { room: attacker.room, body: 'acks', ack_mention_ids: ids }), health.url);
      reportWithRequest('send_message with 500 forged ack_mention_ids', p);
      expect(p.request.status).toBe(200);
      expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
    } finally {
      await health.close();
    }
    const inbox = await ok<{ items: Array<{ mention_id: string }> }>(victimReader, 'check_mentions', {});
    expect(inbox.items.map((i) => i.mention_id)).toContain(victimItem);
  });
});
