// Issue 28's remembered checks (docs/performance.md, "Remembered checks"; docs/core.md): a tool call's
// revocation and room checks, and a mention's owner, agent and membership lookups, are remembered until
// a row they read changes. Each attack tries to live off a remembered answer: calls that passed before a
// revocation or a removal, a "no such owner" seeded before that owner exists, and a flood of distinct
// names meant to grow the memos or hold the event loop.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fails, ok, startTestServer, type TestServer } from '../helpers/server.js';
import { agentInRoom } from '../helpers/seat.js';
import { addHuman } from './helpers.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer, LOOP_HELD_MAX_MS } from '../helpers/loop-probe.js';

describe('security: remembered checks cannot be lived off', () => {
  // The real server over HTTP, so each call of a flood is a request of its own, as an attacker's would be.
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
  });
  afterAll(async () => s?.stop());

  /** A call the server refused: a thrown transport error (the session was closed) or an error result. */
  async function refused(c: Client, tool: string, args: Record<string, unknown>): Promise<boolean> {
    try {
      const r = (await c.callTool({ name: tool, arguments: args })) as { isError?: boolean };
      return r.isError === true;
    } catch {
      return true;
    }
  }

  it('a revoked agent that fires calls around its revocation gets no answer to any call made after it', async () => {
    const { agent, room, c } = await agentInRoom(s, 'Revoked Burst', 'Remembered Burst');
    // Its checks pass and are remembered.
    await Promise.all(Array.from({ length: 5 }, () => ok(c, 'read_room', { room })));
    expect((await s.api('DELETE', `/v1/credentials/${agent.credential_id}`)).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 10 }, (_x, i) => refused(c, i % 2 ? 'read_room' : 'send_message', { room, body: `still here ${i}` })));
    expect(after).toEqual(Array(10).fill(true));
    await expect(s.connect(agent.credential)).rejects.toThrow();
  });

  it('an agent removed from a room by its owner is refused there at once, on every tool, with an error_id', async () => {
    const { agent, room, c } = await agentInRoom(s, 'Removed Member', 'Remembered Removal');
    await ok(c, 'read_room', { room });
    await ok(c, 'send_message', { room, body: 'before' });
    expect((await s.api('DELETE', `/v1/rooms/${room}/agents/${agent.plate}`)).status).toBeLessThan(300);
    for (const [tool, args] of [
      ['read_room', { room }],
      ['send_message', { room, body: 'after' }],
      ['read_board', { room }],
      ['list_files', { room }],
    ] as const) {
      const e = await fails(c, tool, args);
      expect(e.code, tool).toBe('NOT_MEMBER');
      expect(e.error_id).toMatch(/^err_/);
    }
    const messages = (await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages.map((m: { body: string }) => m.body);
    expect(messages).toEqual(['before']);
  });

  it('"no such owner" seeded before the owner exists does not hide that owner\'s agent from mentions once it joins', async () => {
    const { room, c } = await agentInRoom(s, 'Seeder', 'Remembered Seeding');
    // The attacker asks for the handle before its owner and agent exist, so the lookups remember "none".
    for (let i = 0; i < 3; i++) {
      expect((await fails(c, 'send_message', { room, body: 'hello?', mention_targets: ['@late-agent(late-owner)'] })).reason).toBe('unknown_mention_target');
    }
    const late = await s.owner('Late Owner');
    await addHuman(s, room, late.owner_id);
    const agent = await s.agent('Late Agent', { token: late.token });
    expect(agent.handle).toBe('@late-agent(late-owner)');
    await s.join(room, agent.plate, late.token);
    const sent = await ok<{ mentions: Array<{ plate?: string }> }>(c, 'send_message', { room, body: 'now?', mention_targets: ['@late-agent(late-owner)'] });
    expect(sent.mentions.map((m) => m.plate)).toEqual([agent.plate]);
  });

  it('a mention target remembered while it was a member is refused once its owner removes it: no inbox item, no wake', async () => {
    const { room, c } = await agentInRoom(s, 'Pinger', 'Remembered Target');
    const victim = await s.agent('Pinged Agent');
    await s.join(room, victim.plate);
    // The attacker's sends resolve the handle (and the plate) while the agent is in the room: remembered.
    for (const target of [victim.handle, victim.handle, victim.plate]) {
      expect((await ok<{ mentions: Array<{ plate?: string }> }>(c, 'send_message', { room, body: 'ping', mention_targets: [target] })).mentions.map((m) => m.plate)).toEqual([victim.plate]);
    }
    const items = () => (s.running.core.db.prepare('SELECT COUNT(*) AS n FROM mentions WHERE plate = ?').get(victim.plate) as { n: number }).n;
    const before = items();
    expect((await s.api('DELETE', `/v1/rooms/${room}/agents/${victim.plate}`)).status).toBeLessThan(300);
    for (const target of [victim.handle, victim.plate]) {
      const e = await fails(c, 'send_message', { room, body: 'still there?', mention_targets: [target] });
      expect(e.reason).toBe('unknown_mention_target');
      expect(e.error_id).toMatch(/^err_/);
    }
    expect(items()).toBe(before);
  });

  it('a flood of distinct unknown owners and agents neither holds the event loop nor breaks the lookups of real ones', async () => {
    const { room, c } = await agentInRoom(s, 'Flooder', 'Remembered Flood');
    const target = await s.agent('Flood Target');
    await s.join(room, target.plate);
    const health = await startHealthServer();
    try {
      // One request after another, as one attacking agent sends them; each is refused as unknown, never taken for another agent.
      const reasons = new Set<string>();
      const flood = async () => {
        for (let i = 0; i < 600; i++) {
          const r = (await c.callTool({ name: 'send_message', arguments: { room, body: 'x', mention_targets: [`@a${i}(o${i})`] } })) as {
            structuredContent?: { error?: { reason?: string } };
          };
          reasons.add(r.structuredContent?.error?.reason ?? 'taken');
        }
      };
      const p = await probeLoopAndRequest(flood, health.url);
      reportWithRequest('600 mentions of distinct unknown owners', p);
      expect(p.request.status).toBe(200);
      expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
      expect([...reasons]).toEqual(['unknown_mention_target']);
    } finally {
      await health.close();
    }
    const sent = await ok<{ mentions: Array<{ plate?: string }> }>(c, 'send_message', { room, body: 'real one', mention_targets: [target.handle] });
    expect(sent.mentions.map((m) => m.plate)).toEqual([target.plate]);
  });
});
