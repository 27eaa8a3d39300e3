import { describe, it, expect } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { seqId } from '../../src-main/core/util/ids.js';
import { finishWake, markRunning } from '../../src-main/core/wakes/store.js';
import { migratedTo, insertRow } from '../helpers/migrations.js';

/** Migration 0020 (docs/tasks.md "History"): task events recorded, and the past of existing tasks backfilled in time order. */

const PLATE = 'ADA-AGT-000001';

function task(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    room_id: 'room_1',
    title: `Task ${id}`,
    definition_of_done: 'tests pass',
    assignee: PLATE,
    status: 'todo',
    consent_state: 'auto',
    created_by_kind: 'human',
    created_by_owner: 'own_1',
    created_at: 1_000,
    updated_at: 1_000,
    ...extra,
  };
}

function eventsOf(db: ReturnType<typeof migratedTo>, taskId: string) {
  return db.prepare('SELECT seq, at, kind, actor_kind, actor_id, from_value, to_value, reason, wake_id, detail FROM task_events WHERE task_id = ? ORDER BY seq').all(taskId) as Array<
    Record<string, unknown>
  >;
}

describe('0020-task-events', () => {
  it('backfills created, wakes, reviews, completion, merge and archiving of existing tasks, in time order, and leaves the tasks as they were', () => {
    const db = migratedTo(19);
    insertRow(db, 'agents', { id: 'agt_1', plate: PLATE, owner_id: 'own_1', name: 'Dev', slug: 'dev', scopes: 31, created_at: 500 });
    insertRow(db, 'tasks', task('task_a'));
    insertRow(db, 'tasks', task('task_b', { created_by_kind: 'agent', created_by_plate: PLATE, created_at: 2_000, updated_at: 2_000 }));
    insertRow(
      db,
      'tasks',
      task('task_c', {
        status: 'done',
        handoff_notes: 'notes',
        summary: 'shipped',
        completed_at: 5_000,
        archived_at: 7_000,
        merged_commit: 'abc123',
        merged_at: 6_000,
        merged_by: 'own_1',
        created_at: 3_000,
        updated_at: 7_000,
      }),
    );
    insertRow(db, 'tasks', task('task_d', { status: 'failed', reason: 'boom', created_at: 3_500, updated_at: 3_600 }));
    insertRow(db, 'tasks', task('task_e', { retry_of: 'task_d', created_at: 3_700, updated_at: 3_700 }));
    const wake = seqId('wake', 1, 4_000);
    insertRow(db, 'wakes', {
      id: wake,
      plate: PLATE,
      room_id: 'room_1',
      trigger: 'assignment',
      task_id: 'task_c',
      content: '{}',
      event_key: 'task:task_c:assign:0',
      created_at: 4_000,
      status: 'handled',
      ended_at: 4_500,
    });
    insertRow(db, 'task_reviews', { id: 'review_1', task_id: 'task_c', room_id: 'room_1', owner_id: 'own_1', verdict: 'approve', comments: '[]', created_at: 5_500 });
    const tasksBefore = db.prepare('SELECT * FROM tasks ORDER BY id').all();

    expect(migrate(db, 20)).toBe(20);

    expect(db.prepare('SELECT * FROM tasks ORDER BY id').all()).toEqual(tasksBefore);
    expect(eventsOf(db, 'task_a')).toEqual([
      { seq: expect.any(Number), at: 1_000, kind: 'created', actor_kind: 'human', actor_id: 'own_1', from_value: null, to_value: PLATE, reason: null, wake_id: null, detail: null },
    ]);
    expect(eventsOf(db, 'task_b').map((e) => [e.kind, e.actor_kind, e.actor_id])).toEqual([['created', 'agent', PLATE]]);
    const c = eventsOf(db, 'task_c');
    expect(c.map((e) => [e.kind, e.at])).toEqual([
      ['created', 3_000],
      ['wake_queued', 4_000],
      ['wake_handled', 4_500],
      ['completed', 5_000],
      ['reviewed', 5_500],
      ['merged', 6_000],
      ['archived', 7_000],
    ]);
    expect(c[1]).toMatchObject({ wake_id: wake, to_value: PLATE, actor_kind: 'server' });
    expect(JSON.parse(c[3]!.detail as string)).toEqual({ summary: 'shipped' });
    expect(JSON.parse(c[4]!.detail as string)).toMatchObject({ verdict: 'approve', review_id: 'review_1' });
    expect(c[5]).toMatchObject({ actor_kind: 'human', actor_id: 'own_1' });
    expect(JSON.parse(eventsOf(db, 'task_e')[0]!.detail as string)).toEqual({ retry_of: 'task_d' });
    // seq follows time across tasks too: the backfill was written oldest first.
    const all = db.prepare('SELECT at FROM task_events ORDER BY seq').all() as Array<{ at: number }>;
    expect(all.map((r) => r.at)).toEqual([...all.map((r) => r.at)].sort((x, y) => x - y));
    db.close();
  });

  it('records a task wake queued, attached later, run and ended through the wakes table itself', () => {
    const db = migratedTo(20);
    insertRow(db, 'agents', { id: 'agt_1', plate: PLATE, owner_id: 'own_1', name: 'Dev', slug: 'dev', scopes: 31, created_at: 500 });
    insertRow(db, 'tasks', task('task_a'));
    db.prepare('DELETE FROM task_events').run();
    const w1 = seqId('wake', 1, 2_000);
    insertRow(db, 'wakes', { seq: 1, id: w1, plate: PLATE, room_id: 'room_1', trigger: 'assignment', task_id: 'task_a', content: '{}', event_key: 'k1', created_at: 2_000 });
    // A mention wake that gets about the task afterwards (a review's mention): queued for it from then on.
    const w2 = seqId('wake', 2, 2_100);
    insertRow(db, 'wakes', { seq: 2, id: w2, plate: PLATE, room_id: 'room_1', trigger: 'mention', content: 'hi', event_key: 'msg:m1', created_at: 2_100 });
    db.prepare('UPDATE wakes SET task_id = ? WHERE id = ?').run('task_a', w2);
    expect(markRunning(db, w1, { target: 'runner', host: 'codex', instanceId: 'inst_1', contextVersion: 1 })).toBe(true);
    expect(finishWake(db, w1, 'failed', 'the runner exited with code 1')).toBe(true);
    const rows = eventsOf(db, 'task_a');
    expect(rows.map((e) => [e.kind, e.wake_id])).toEqual([
      ['wake_queued', w1],
      ['wake_queued', w2],
      ['wake_failed', w1],
    ]);
    expect(rows[2]).toMatchObject({ reason: 'the runner exited with code 1', actor_kind: 'server', to_value: PLATE });
    // A wake of no task writes nothing.
    insertRow(db, 'wakes', { seq: 3, id: seqId('wake', 3, 3_000), plate: PLATE, room_id: 'room_1', trigger: 'mention', content: 'x', event_key: 'msg:m2', created_at: 3_000 });
    expect((db.prepare('SELECT count(*) AS n FROM task_events').get() as { n: number }).n).toBe(3);
    db.close();
  });
});
