// Issue 49: a lane is put in order in one request (POST /v1/rooms/:id/lanes/:assignee/order,
// docs/tasks.md "Order"). It takes user text (up to 200 task ids), so it is tried the way an
// attacker would: a member of the room with its own owner token who may not edit the lane's
// tasks, the largest list, a list one over the bound, and a lane path that is not a plate. The
// largest list runs while test/helpers/loop-probe.ts measures how long the event loop was held
// and how long a concurrent GET /healthz waited (both printed); the work is asserted by its
// outcome (every order written, in one transaction), the freeze by the 500 ms of the loop's own
// CPU time the red-team suite allows (wall time stretches on a shared machine).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { LANE_ORDER_MAX } from '../../shared/schemas/tasks.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer } from '../helpers/loop-probe.js';

/** The most one request may name (shared/schemas/tasks.ts LANE_ORDER_MAX). */
const TASKS = LANE_ORDER_MAX;
const FREEZE_MARGIN_MS = 500;

describe('issue 49: reordering a lane', () => {
  let s: TestApp;
  let health: Awaited<ReturnType<typeof startHealthServer>>;
  let room: string;
  let agent: { plate: string; handle: string };
  let mallory: { owner_id: string; token: string };
  const ids: string[] = [];

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    health = await startHealthServer();
    agent = await s.agent('Sorter');
    room = await s.room('Ordered');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { plate: agent.plate })).status).toBe(201);
    mallory = await s.owner('Mallory Member');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: mallory.owner_id, role: 'member' })).status).toBe(201);
    for (let i = 0; i < TASKS; i++) {
      const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: `task ${i}`, definition_of_done: 'done', assignee: agent.plate });
      if (r.status !== 201) throw new Error(JSON.stringify(r.body));
      ids.push(r.body.task_id);
    }
  }, 300_000);
  afterAll(async () => {
    await health?.close();
    await s?.stop();
  });

  const reorder = (taskIds: unknown, token?: string, lane = agent.plate) => s.api('POST', `/v1/rooms/${room}/lanes/${encodeURIComponent(lane)}/order`, { task_ids: taskIds }, token);
  type Lane = { assignee: string; tasks: Array<{ task_id: string; order: number | null }>; next_cursor: string | null };
  /** Every order of the lane, read page by page as the window's "Show more" does. */
  const orders = async () => {
    const seen = new Map<string, number | null>();
    let cursor: string | null = null;
    do {
      const b: { status: number; body: { lanes: Lane[] } } = await s.api('GET', `/v1/rooms/${room}/board?lane=${agent.plate}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(b.status).toBe(200);
      const lane: Lane = b.body.lanes.find((l) => l.assignee === agent.plate)!;
      for (const t of lane.tasks) seen.set(t.task_id, t.order);
      cursor = lane.next_cursor;
    } while (cursor);
    expect(seen.size).toBe(TASKS);
    return seen;
  };

  it('a member who may not edit the lane changes no order, whichever tasks it names', async () => {
    const before = await orders();
    const r = await reorder([...ids].reverse(), mallory.token);
    expect(r.status).toBe(403);
    expect(r.body.error.reason).toBe('not_assigned');
    expect(await orders()).toEqual(before);
  });

  it('refuses a list over the bound, a repeated id and a lane that is not a plate, before any work', async () => {
    expect((await reorder([...ids, 'task_x'])).status).toBe(400);
    const twice = await reorder([ids[0], ids[0]]);
    expect([twice.status, twice.body.error.reason]).toEqual([400, 'duplicate_task']);
    const lane = await reorder(ids.slice(0, 2), undefined, "x' OR 1=1 --");
    expect([lane.status, lane.body.error.reason]).toEqual([400, 'bad_lane']);
    expect((await reorder('not a list')).status).toBe(400);
  });

  it(`puts ${TASKS} tasks in order in one request without holding the event loop`, async () => {
    const wanted = [...ids].reverse();
    const p = await probeLoopAndRequest(() => reorder(wanted), health.url);
    reportWithRequest(`lane order, ${TASKS} tasks`, p);
    expect(p.result.status).toBe(200);
    expect(p.result.body.tasks.map((t: { task_id: string }) => t.task_id)).toEqual(wanted);
    const now = await orders();
    expect(wanted.map((id) => now.get(id))).toEqual(wanted.map((_, i) => (i + 1) * 10));
    expect(p.request.status).toBe(200);
    expect(p.maxHeldCpuMs).toBeLessThan(FREEZE_MARGIN_MS);
  });
});
