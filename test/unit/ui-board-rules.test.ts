import { describe, it, expect } from 'vitest';
import { actionOf } from '../../src-renderer/src/components/allowed.js';
import { allTasks, matchesStatus, waitsOn, type StatusFilter } from '../../src-renderer/src/stores/board.js';
import type { Board, BoardTask, TaskStatus } from '../../shared/api-types.js';

/** The UI's reading of allowed_actions and its board filters as plain functions: which tasks a filter keeps. */

function task(id: string, status: TaskStatus, extra: Partial<BoardTask> = {}): BoardTask {
  return {
    task_id: id,
    room: 'room_1',
    title: `task ${id}`,
    assignee: 'AGT-MINE',
    assignee_handle: '@mine',
    status,
    order: null,
    depends_on: [],
    blocked_by: [],
    lease: null,
    consent_state: 'auto',
    updated_at: '2026-01-01T00:00:00.000Z',
    merged: null,
    allowed_actions: [],
    denied_actions: {},
    overlaps: [],
    ...extra,
  };
}

describe('allowed actions', () => {
  // The UI keeps no rule: it reads what the server listed for the record (tasks/rules.ts).
  const t = task('t', 'todo', { allowed_actions: ['edit', 'cancel'], denied_actions: { reassign: { code: 'admin_only', message: 'Only a room admin may reassign here.' } } });
  it('an act the server lists is allowed', () => {
    expect(actionOf(t, 'edit')).toEqual({ ok: true });
    expect(actionOf(t, 'cancel')).toEqual({ ok: true });
  });
  it('an act the server refuses is disabled with its reason', () => {
    expect(actionOf(t, 'reassign')).toEqual({ ok: false, code: 'admin_only', reason: 'Only a room admin may reassign here.' });
  });
  it('an act in neither list does not apply: hidden', () => {
    expect(actionOf(t, 'archive')).toBeNull();
    expect(actionOf(task('old', 'done'), 'archive')).toBeNull(); // a record that lists no acts
  });
});

describe('board filters', () => {
  const ready = task('ready', 'todo');
  const waiting = task('waiting', 'todo', { depends_on: ['ready'], blocked_by: ['ready'] });
  const doing = task('doing', 'doing', { blocked_by: ['x'] }); // blocked_by only counts for todo
  const blocked = task('blocked', 'blocked');
  const done = task('done', 'done');
  const failed = task('failed', 'failed');
  const cancelled = task('cancelled', 'cancelled');
  const all = [ready, waiting, doing, blocked, done, failed, cancelled];

  it('waitsOn: only a todo task waits on its unfinished prerequisites', () => {
    expect(waitsOn(waiting)).toEqual(['ready']);
    expect(waitsOn(ready)).toEqual([]);
    expect(waitsOn(doing)).toEqual([]);
    expect(waitsOn(task('t', 'todo', { blocked_by: undefined as unknown as string[] }))).toEqual([]);
  });

  const table: Array<[StatusFilter, string[]]> = [
    ['', ['ready', 'waiting', 'doing', 'blocked', 'done', 'failed', 'cancelled']],
    ['waiting', ['waiting']],
    ['todo', ['ready']], // a todo task that waits shows under waiting, not under todo
    ['doing', ['doing']],
    ['blocked', ['blocked']], // the status an agent set, not waiting on prerequisites
    ['done', ['done']],
    ['failed', ['failed']],
    ['cancelled', ['cancelled']],
  ];
  it.each(table)('status filter %j keeps %j', (status, want) => {
    expect(all.filter((t) => matchesStatus(t, status)).map((t) => t.task_id)).toEqual(want);
  });

  it('allTasks: lanes then done, each task once; nothing for no board', () => {
    const b: Pick<Board, 'lanes' | 'done'> = {
      lanes: [
        { assignee: 'A', handle: '@a', tasks: [ready, waiting], total: 2, next_cursor: null },
        { assignee: 'B', handle: '@b', tasks: [doing, ready], total: 2, next_cursor: null },
      ],
      done: [done, doing],
    };
    expect(allTasks(b).map((t) => t.task_id)).toEqual(['ready', 'waiting', 'doing', 'done']);
    expect(allTasks(undefined)).toEqual([]);
    expect(allTasks({ lanes: [], done: [] })).toEqual([]);
  });
});
