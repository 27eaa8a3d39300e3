import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

/** GET /v1/needs-you: what waits on a human across its rooms, and only what it may see (docs/needs-you.md). */
describe('needs you', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await openTestApp({ background: true });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('lists failed and blocked tasks, tasks waiting on a failed one, failed wakes and mentions of me; nothing of rooms I am not in', async () => {
    const me = (await s.api('GET', '/v1/me')).body;
    const a = await s.agent('Needy');
    const room = await s.room('Needs Room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const mk = async (title: string, depends_on?: string[]) =>
      (await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'done', assignee: a.handle, ...(depends_on ? { depends_on } : {}) })).body;
    const failing = await mk('Will fail');
    await mk('Waits on the failed one', [failing.task_id]);
    const blocking = await mk('Will block');
    const fine = await mk('All good');
    await ok(c, 'claim_task', { task_id: failing.task_id });
    await ok(c, 'complete_task', { task_id: failing.task_id, status: 'failed', reason: 'tests red' });
    await ok(c, 'claim_task', { task_id: blocking.task_id });
    await ok(c, 'complete_task', { task_id: blocking.task_id, status: 'blocked', reason: 'need a key' });
    await ok(c, 'send_message', { room, body: 'please decide', mention_targets: [me.handle] });

    const other = await s.owner('Bob Other');
    const b = await s.agent('Bobs', { token: other.token });
    const hidden = await s.room('Bobs Room', other.token);
    await s.join(hidden, b.plate, other.token);
    const bt = (await s.api('POST', `/v1/rooms/${hidden}/tasks`, { title: 'Bobs failure', definition_of_done: 'x', assignee: b.handle }, other.token)).body;
    const bc = await s.connect(b.credential);
    await ok(bc, 'claim_task', { task_id: bt.task_id });
    await ok(bc, 'complete_task', { task_id: bt.task_id, status: 'failed', reason: 'x' });

    const r = await s.api('GET', '/v1/needs-you');
    expect(r.status).toBe(200);
    const kinds = r.body.items.map((i: any) => [i.kind, i.task?.title ?? i.message?.body, i.action, i.room.name]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        ['task_failed', 'Will fail', 'retry', 'Needs Room'],
        ['blocked_by_failed', 'Waits on the failed one', 'open', 'Needs Room'],
        ['task_blocked', 'Will block', 'reassign', 'Needs Room'],
        ['mention', 'please decide', 'open', 'Needs Room'],
      ]),
    );
    expect(r.body.items.find((i: any) => i.kind === 'blocked_by_failed').failed_dep).toBe(failing.task_id);
    expect(kinds.map((k: any) => k[1])).not.toContain('All good');
    expect(kinds.map((k: any) => k[1])).not.toContain('Bobs failure');
    void fine;
    // Bob sees his own, not mine.
    const rb = await s.api('GET', '/v1/needs-you', undefined, other.token);
    expect(rb.body.items.map((i: any) => i.task?.title)).toEqual(['Bobs failure']);
    // One room only, and bounded.
    const one = await s.api('GET', `/v1/needs-you?room=${hidden}`);
    expect(one.body.items).toEqual([]);
    const lim = await s.api('GET', '/v1/needs-you?limit=1');
    expect(lim.body.items).toHaveLength(1);
    expect(lim.body.truncated).toBe(true);
    const bad = await s.api('GET', '/v1/needs-you?limit=0');
    expect(bad.status).toBe(400);
    expect(bad.body.error.error_id).toBeTruthy();
  });

  it('lists a failed wake of my agent with Retry', async () => {
    const a = await s.agent('Crasher');
    const room = await s.room('Crash Room');
    await s.join(room, a.plate);
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: ['-e', 'process.exit(3)'] })).status).toBe(200);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'wake up', mention_targets: [a.handle] });
    const item = await waitFor(async () => (await s.api('GET', `/v1/needs-you?room=${room}`)).body.items.find((i: any) => i.kind === 'wake_failed'), 'the failed wake');
    expect(item).toMatchObject({ action: 'retry', room: { room_id: room }, wake: { plate: a.plate, status: 'failed' } });
    // A failed test wake (doctor --wake, the connect dialog's test) is shown under Settings, not here:
    // its room is the owner's Test wakes room, which is no working room.
    const t = await s.api('POST', '/v1/test-wakes', { plate: a.plate });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    await waitFor(
      async () => ((await s.api('GET', '/v1/test-wakes')).body.wakes as Array<{ wake_id: string; status: string }>).some((w) => w.wake_id === t.body.wake.wake_id && w.status === 'failed'),
      'the test wake failed',
    );
    const all = (await s.api('GET', '/v1/needs-you')).body.items as Array<{ kind: string; room: { room_id: string } }>;
    expect(all.filter((i) => i.kind === 'wake_failed').map((i) => i.room.room_id)).toEqual([room]);
  });

  it('reads a room’s task overlaps once for all of its task items, not once per item', async () => {
    // Its own app: the overlaps statement is counted from its first preparation on. Each item used to
    // read the room's open tasks again (200 items of a room of 10,000 tasks held the loop for over a second).
    const app = await openTestApp();
    try {
      let reads = 0;
      const prepare = app.core.db.prepare.bind(app.core.db);
      app.core.db.prepare = ((sql: string) => {
        const st = prepare(sql);
        if (/FROM tasks WHERE room_id = \? AND changed_paths IS NOT NULL/.test(sql)) {
          const all = st.all.bind(st);
          st.all = ((...args: unknown[]) => (reads++, all(...args))) as typeof st.all;
        }
        return st;
      }) as typeof app.core.db.prepare;
      const a = await app.agent('Failer');
      const c = await app.connect(a.credential);
      const rooms = [await app.room('Overlaps One'), await app.room('Overlaps Two')];
      for (const room of rooms) {
        await app.join(room, a.plate);
        for (let i = 0; i < 3; i++) {
          const t = (await app.api('POST', `/v1/rooms/${room}/tasks`, { title: `fails ${i}`, definition_of_done: 'd', assignee: a.handle })).body;
          await ok(c, 'claim_task', { task_id: t.task_id });
          await ok(c, 'complete_task', { task_id: t.task_id, status: 'failed', reason: 'red' });
        }
      }
      reads = 0;
      const r = await app.api('GET', '/v1/needs-you');
      expect(r.body.items.filter((i: any) => i.kind === 'task_failed')).toHaveLength(6);
      expect(reads).toBe(rooms.length);
      // Each item still carries its task's acts, as the task's own record does.
      for (const i of r.body.items.filter((x: any) => x.task)) {
        const own = (await app.api('GET', `/v1/rooms/${i.room.room_id}/tasks/${i.task.task_id}`)).body;
        expect({ allowed: i.task.allowed_actions, overlaps: i.task.overlaps }).toEqual({ allowed: own.allowed_actions, overlaps: own.overlaps });
      }
    } finally {
      await app.stop();
    }
  });

  it('the board carries status totals of the whole room, not of the page', async () => {
    const a = await s.agent('Counter');
    const room = await s.room('Count Room');
    await s.join(room, a.plate);
    for (let i = 0; i < 12; i++) await s.api('POST', `/v1/rooms/${room}/tasks`, { title: `t${i}`, definition_of_done: 'd', assignee: a.handle });
    const b = await s.api('GET', `/v1/rooms/${room}/board?limit=3`);
    expect(b.body.lanes[0].tasks).toHaveLength(3);
    expect(b.body.status_totals).toMatchObject({ todo: 12, doing: 0, blocked: 0, done: 0 });
  });
});
