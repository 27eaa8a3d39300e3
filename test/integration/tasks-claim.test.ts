import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

describe('tasks: claim_task is one atomic compare-and-swap', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
  });
  afterAll(async () => s.stop());

  it('50 concurrent claim_task calls from 50 MCP sessions of the assignee: exactly one doing, 49 already_claimed, one lease holder', async () => {
    const room = await s.room('Race');
    const worker = await s.agent('Racer');
    const lead = await s.agent('Boss');
    await s.join(room, worker.plate);
    await s.join(room, lead.plate);
    const l = await s.connect(lead.credential);
    const sessions: AppClient[] = await Promise.all(Array.from({ length: 50 }, () => s.connect(worker.credential)));
    const ids = await Promise.all(sessions.map(async (c) => (await ok(c, 'whoami')).session_id as string));
    expect(new Set(ids).size).toBe(50);

    const t = await ok(l, 'create_task', { room, title: 'contended', definition_of_done: 'one winner', assignee: worker.handle });
    const results: any[] = await Promise.all(sessions.map((c) => c.callTool({ name: 'claim_task', arguments: { task_id: t.task_id } })));

    const wins = results.filter((r) => !r.isError);
    const losses = results.filter((r) => r.isError).map((r) => r.structuredContent.error);
    expect(wins).toHaveLength(1);
    expect(losses).toHaveLength(49);
    expect(losses.every((e) => e.code === 'CONFLICT' && e.reason === 'already_claimed' && e.retryable === false)).toBe(true);

    const winner = wins[0].structuredContent;
    expect(winner.status).toBe('doing');
    expect(winner.claimed).toBe(true);
    const winnerIdx = results.findIndex((r) => !r.isError);
    expect(winner.lease.instance_id).toBe(ids[winnerIdx]);

    const rows = s.running.core.db.prepare('SELECT status, lease_instance_id FROM tasks WHERE id = ?').all(t.task_id);
    expect(rows).toEqual([{ status: 'doing', lease_instance_id: ids[winnerIdx] }]);
    const board = await ok(l, 'read_board', { room, status: 'doing' });
    const doing = board.lanes.flatMap((x: any) => x.tasks);
    expect(doing.map((x: any) => x.task_id)).toEqual([t.task_id]);
  });
});
