import { describe, it, expect } from 'vitest';
import { ok } from '../helpers/server.js';
import { agentInRoom, appFor } from '../helpers/seat.js';
import { PULL_REASON } from '../../src-main/core/wakes/store.js';

/**
 * A mention of an agent that nothing can take now is queued parked for pull by the message's own
 * transaction (docs/performance.md, "A mention's wake parked at once"), as the dispatcher's pass
 * would leave it; an agent with a runner keeps its wake queued for the runner. The app runs no
 * dispatcher here, so what the rows show is the message's transaction alone.
 */
describe("a mention's wake, parked at once", () => {
  const app = appFor({ database: 'home' });

  const wakeOf = (messageId: string, plate: string) =>
    app.core.db.prepare('SELECT status, target, reason FROM wakes WHERE message_id = ? AND plate = ?').get(messageId, plate) as
      | { status: string; target: string | null; reason: string | null }
      | undefined;

  it('no runner, no session: queued for pull with the reason the wake log shows; the answer says inbox and how to add a runner', async () => {
    const { room, c } = await agentInRoom(app, 'Sender', 'Park');
    const b = await app.agent('Bare');
    await app.join(room, b.plate);
    const sent = await ok<{ message_id: string; wakes: Array<{ plate: string; status: string; target: string; reason: string }> }>(c, 'send_message', {
      room,
      body: 'please look',
      mention_targets: [b.handle],
    });
    expect(wakeOf(sent.message_id, b.plate)).toEqual({ status: 'queued', target: 'pull', reason: PULL_REASON });
    expect(sent.wakes).toEqual([expect.objectContaining({ plate: b.plate, status: 'inbox', target: 'pull' })]);
    expect(sent.wakes[0]!.reason).toMatch(/no runner and no live channel session.*agent-rooms connect/);
  });

  it('with a runner: queued for the runner, not parked', async () => {
    const { room, c } = await agentInRoom(app, 'Sender2', 'Run');
    const b = await app.agent('Runnable');
    const put = await app.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: ['-e', '0'] });
    expect(put.status).toBe(200);
    await app.join(room, b.plate);
    const sent = await ok<{ message_id: string; wakes: Array<{ status: string; target: string }> }>(c, 'send_message', {
      room,
      body: 'please run',
      mention_targets: [b.handle],
    });
    expect(wakeOf(sent.message_id, b.plate)).toEqual({ status: 'queued', target: null, reason: null });
    expect(sent.wakes).toEqual([expect.objectContaining({ status: 'queued', target: 'runner' })]);
  });
});

/**
 * What a send does in its own commit for its sender and the agents it mentions
 * (docs/performance.md, "Asynchronous commit"): the sender's pull wakes in the room are handled,
 * and each mentioned agent's pending count stays exact without being counted again.
 */
describe('a send, for its sender and its targets', () => {
  const app = appFor({ database: 'home' });

  type Wire = { structuredContent: Record<string, unknown>; _meta?: { pending_mentions?: number } };

  it("posting handles the sender's wakes parked for pull in that room, and only there", async () => {
    const { room, c } = await agentInRoom(app, 'Asker', 'Pull handled');
    const other = await app.room('Elsewhere');
    const b = await app.agent('Puller');
    await app.join(room, b.plate);
    await app.join(other, b.plate);
    const cb = await app.connect(b.credential);
    const asked = await ok<{ message_id: string }>(c, 'send_message', { room, body: 'over to you', mention_targets: [b.handle] });
    const wakeHere = app.core.db.prepare('SELECT id, status FROM wakes WHERE message_id = ?').get(asked.message_id) as { id: string; status: string };
    expect(wakeHere.status).toBe('queued');
    await ok(cb, 'send_message', { room: other, body: 'busy elsewhere' });
    expect((app.core.db.prepare('SELECT status FROM wakes WHERE id = ?').get(wakeHere.id) as { status: string }).status).toBe('queued');
    await ok(cb, 'send_message', { room, body: 'on it' });
    expect(app.core.db.prepare('SELECT status, reason FROM wakes WHERE id = ?').get(wakeHere.id)).toEqual({
      status: 'handled',
      reason: 'handled by pull: the agent acted in the room',
    });
  });

  it("a mentioned agent's pending_mentions counts every mention and ack, as the inbox holds them", async () => {
    const { room, c } = await agentInRoom(app, 'Mentioner', 'Counts');
    const b = await app.agent('Counted');
    await app.join(room, b.plate);
    const cb = await app.connect(b.credential);
    const pending = async () => ((await cb.callTool({ name: 'whoami', arguments: {} })) as unknown as Wire)._meta!.pending_mentions!;
    const inInbox = () => (app.core.db.prepare('SELECT COUNT(*) AS n FROM mentions WHERE plate = ? AND acked_at IS NULL').get(b.plate) as { n: number }).n;
    const before = await pending(); // counted once, then kept
    for (let i = 0; i < 3; i++) await ok(c, 'send_message', { room, body: `ping ${i}`, mention_targets: [b.handle] });
    expect(await pending()).toBe(before + 3);
    expect(inInbox()).toBe(before + 3);
    const items = (await ok<{ items: Array<{ mention_id: string }> }>(cb, 'check_mentions', { room })).items;
    await ok(cb, 'send_message', { room, body: 'seen one', ack_mention_ids: [items[0]!.mention_id] });
    expect(await pending()).toBe(before + 2);
    expect(inInbox()).toBe(before + 2);
    await ok(c, 'send_message', { room, body: 'and another', mention_targets: [b.handle] });
    expect(await pending()).toBe(before + 3);
    expect(inInbox()).toBe(before + 3);
  });
});
