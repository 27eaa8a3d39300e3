import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { ok } from '../helpers/server.js';
import { agentInRoom } from '../helpers/seat.js';
import { PULL_REASON } from '../../src-main/core/wakes/store.js';

/**
 * A mention of an agent that nothing can take now is queued parked for pull by the message's own
 * transaction (docs/performance.md, "A mention's wake parked at once"), as the dispatcher's pass
 * would leave it; an agent with a runner keeps its wake queued for the runner. The app runs no
 * dispatcher here, so what the rows show is the message's transaction alone.
 */
describe("a mention's wake, parked at once", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await openTestApp({ database: 'home' });
  });
  afterAll(async () => {
    await app.stop();
  });

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
