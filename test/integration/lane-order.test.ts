import { describe, it, expect, beforeAll } from 'vitest';
import type { CoreEvent } from '../../shared/core-events.js';
import { appFor, seatFor } from '../helpers/seat.js';

/**
 * A lane put in order at once (docs/tasks.md "Order"): POST /v1/rooms/:id/lanes/:assignee/order
 * gives the tasks named the orders 10, 20, 30… in one transaction, each edit recorded as a PATCH
 * of its order records it; one task refused leaves every order as it was.
 */
describe('POST /v1/rooms/:id/lanes/:assignee/order', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Orderly', 'Lanes');
  let otherRoom: string;
  let member: { owner_id: string; token: string };

  beforeAll(async () => {
    otherRoom = await s.room('Other lanes');
    await s.join(otherRoom, seat.agent.plate);
    member = await s.owner('Plain Member');
    expect((await s.api('POST', `/v1/rooms/${seat.room}/members`, { owner_id: member.owner_id, role: 'member' })).status).toBe(201);
  });

  const create = async (title: string, room = seat.room): Promise<string> => {
    const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'it is done', assignee: seat.agent.handle });
    expect(r.status).toBe(201);
    return r.body.task_id as string;
  };
  const reorder = (taskIds: string[], token?: string, assignee = seat.agent.plate) =>
    s.api('POST', `/v1/rooms/${seat.room}/lanes/${assignee}/order`, { task_ids: taskIds }, token);
  /** The lane's task ids in board order, with their orders. */
  const lane = async () => {
    const b = await s.api('GET', `/v1/rooms/${seat.room}/board`);
    return (b.body.lanes.find((l: { assignee: string }) => l.assignee === seat.agent.plate).tasks as Array<{ task_id: string; order: number | null }>).map((t) => [t.task_id, t.order]);
  };
  const edits = async (id: string) =>
    ((await s.api('GET', `/v1/rooms/${seat.room}/tasks/${id}/history`)).body.events as Array<{ kind: string; detail?: { fields?: string[] } }>).filter((e) => e.kind === 'edited');
  const boardEvents = (f: () => Promise<unknown>) => async () => {
    const seen: CoreEvent[] = [];
    const off = s.running.core.bus.on((e) => seen.push(e));
    try {
      await f();
    } finally {
      off();
    }
    return seen.filter((e) => e.type === 'board.changed' && e.room === seat.room).length;
  };

  let a: string, b: string, c: string;

  it('sets the orders in the order given, answers the tasks with their acts, records each changed order as an edit and announces the board once', async () => {
    a = await create('First made');
    b = await create('Second made');
    c = await create('Third made');
    expect((await lane()).map(([id]) => id)).toEqual([a, b, c]);

    let r: Awaited<ReturnType<typeof reorder>> | undefined;
    const announced = await boardEvents(async () => void (r = await reorder([c, a, b])))();
    expect(r!.status).toBe(200);
    expect(r!.body.assignee).toBe(seat.agent.plate);
    expect(r!.body.tasks.map((t: { task_id: string; order: number }) => [t.task_id, t.order])).toEqual([[c, 10], [a, 20], [b, 30]]);
    for (const t of r!.body.tasks) expect(t.allowed_actions).toContain('edit');
    expect(await lane()).toEqual([[c, 10], [a, 20], [b, 30]]);
    expect(announced).toBe(1);
    for (const id of [a, b, c]) expect((await edits(id)).map((e) => e.detail?.fields)).toEqual([['order']]);

    // Only the orders that change are written: a repeat writes nothing and announces nothing.
    const again = await boardEvents(async () => expect((await reorder([c, a, b])).status).toBe(200))();
    expect(again).toBe(0);
    for (const id of [a, b, c]) expect(await edits(id)).toHaveLength(1);

    // Moving one task renumbers the others after it, each its own edit.
    expect((await reorder([a, c, b])).status).toBe(200);
    expect(await lane()).toEqual([[a, 10], [c, 20], [b, 30]]);
    expect(await edits(b)).toHaveLength(1);
    expect(await edits(a)).toHaveLength(2);
    expect(await edits(c)).toHaveLength(2);
  });

  it('is all or nothing: one task it may not reorder leaves every order as it was', async () => {
    const before = await lane();
    const editsBefore = await Promise.all([a, b, c].map(edits));
    const cancelled = await create('Withdrawn');
    expect((await s.api('POST', `/v1/rooms/${seat.room}/tasks/${cancelled}/cancel`)).status).toBe(200);

    const finished = await reorder([b, c, a, cancelled]);
    expect(finished.status).toBe(409);
    expect(finished.body.error).toMatchObject({ code: 'CONFLICT', reason: 'task_finished' });

    const unknown = await reorder([b, c, 'task_nope']);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');

    const twice = await reorder([b, b, c]);
    expect(twice.status).toBe(400);
    expect(twice.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'duplicate_task' });

    expect((await reorder([])).status).toBe(400);
    expect((await reorder([b, c], undefined, 'not-a-plate')).body.error).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'bad_lane' });
    expect(await lane()).toEqual(before);
    expect(await Promise.all([a, b, c].map(edits))).toEqual(editsBefore);
  });

  it('a task of another lane is refused as not in the lane', async () => {
    const before = await lane();
    const lead = await s.agent('Other Lane');
    await s.join(seat.room, lead.plate);
    const theirs = (await s.api('POST', `/v1/rooms/${seat.room}/tasks`, { title: 'Theirs', definition_of_done: 'ok', assignee: lead.handle })).body.task_id as string;
    const r = await reorder([theirs, b, c]);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'CONFLICT', reason: 'not_in_lane' });
    expect(await lane()).toEqual(before);
  });

  it('a member without the edit right is refused as a PATCH of the order is, and nothing changes', async () => {
    const before = await lane();
    const patched = await s.api('PATCH', `/v1/rooms/${seat.room}/tasks/${a}`, { order: 5 }, member.token);
    expect(patched.status).toBe(403);
    const r = await reorder([b, a, c], member.token);
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: patched.body.error.code, reason: patched.body.error.reason, message: patched.body.error.message });
    expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', reason: 'not_assigned' });
    // The board told the member so before it tried.
    const card = (await s.api('GET', `/v1/rooms/${seat.room}/board`, undefined, member.token)).body.lanes[0].tasks[0];
    expect(card.denied_actions.edit.code).toBe('admin_assignee_owner_or_creator_only');
    expect(await lane()).toEqual(before);
  });

  it('a task of another room is not found, and nothing changes', async () => {
    const before = await lane();
    const elsewhere = await create('Elsewhere', otherRoom);
    const r = await reorder([b, elsewhere, c]);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('NOT_FOUND');
    expect(await lane()).toEqual(before);
    // And a room the caller is not in is not found either.
    const stranger = await s.owner('Stranger');
    expect((await reorder([b, c], stranger.token)).status).toBe(404);
  });
});
