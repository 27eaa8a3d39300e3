import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A mention that waits on Trust tells its author so (docs/wakes.md "What a mention says"): the
 * message response and send_message carry `reason_code: 'trust_off'` and words that name the
 * agent's owner and say both directions: neither another owner nor that owner's agents wake it
 * until its owner turns Trust on.
 */
describe('a mention waiting on Trust', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('tells a human author and an agent author of another owner, and stops once Trust is on', async () => {
    const room = await s.room('Shared');
    const bea = await s.owner('Bea Second');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' })).status).toBeLessThan(300);
    // Adding a person of another owner is an invitation: Bea accepts it (her own act).
    expect((await s.api('POST', `/v1/rooms/${room}/invitation/accept`, {}, bea.token)).status).toBeLessThan(300);
    const mine = await s.agent('Reviewer');
    await s.join(room, mine.plate);
    const hers = await s.agent('Helper', { token: bea.token });
    await s.join(room, hers.plate, bea.token);

    const byHer = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'please look', mention_targets: [mine.handle] }, bea.token);
    expect(byHer.status).toBe(201);
    expect(byHer.body.wakes).toEqual([{ plate: mine.plate, handle: mine.handle, wake_id: null, status: 'inbox', target: 'pull', reason: expect.any(String), reason_code: 'trust_off' }]);
    const words = byHer.body.wakes[0].reason as string;
    expect(words).toMatch(/^Ada Owner has not turned Trust on in this room/);
    expect(words).toMatch(/mentions by other owners and by their agents do not wake Ada Owner's agents here/);

    const client = await s.connect(hers.credential);
    const byAgent = await ok(client, 'send_message', { room, body: 'me too', mention_targets: [mine.handle] });
    expect(byAgent.wakes).toEqual([expect.objectContaining({ plate: mine.plate, status: 'inbox', reason_code: 'trust_off' })]);
    await client.close();

    // Ada's own mention wakes it whatever Trust says (no code: a wake was queued, or it waits for another reason).
    const own = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'mine', mention_targets: [mine.handle] });
    expect(own.body.wakes[0].reason_code).not.toBe('trust_off');

    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' })).status).toBe(200);
    const after = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'now?', mention_targets: [mine.handle] }, bea.token);
    expect(after.body.wakes[0].reason_code).toBeUndefined();
    expect(after.body.wakes[0].wake_id).toEqual(expect.any(String));
  });
});
