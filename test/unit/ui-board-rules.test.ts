import { describe, it, expect } from 'vitest';
import { canArchive, canCancel, canEdit, canReassign, canRelease } from '../../src-renderer/src/components/boardRules.js';
import { allTasks, matchesStatus, waitsOn, wouldCycle, type StatusFilter } from '../../src-renderer/src/stores/board.js';
import type { AgentMember, Board, BoardTask, Members, Role, Room, TaskStatus } from '../../shared/api-types.js';

/** The UI's board rules and filters as plain functions: who may do what, which tasks a filter keeps. */

const ME = 'own_me';
const OTHER = 'own_other';

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
    ...extra,
  };
}

function room(role: Role, crossOwner = false): Room {
  return { room_id: 'room_1', name: 'R', created_by: ME, cross_owner: crossOwner, last_seq: 0, context_version: 0, created_at: '2026-01-01T00:00:00.000Z', role };
}

function agent(plate: string, ownerId: string): AgentMember {
  return { kind: 'agent', plate, name: plate, handle: `@${plate}`, owner: { owner_id: ownerId, name: ownerId }, revoked: false };
}

function members(...agents: AgentMember[]): Members {
  return { humans: [], agents, instances: [] };
}

const mineOnly = members(agent('AGT-MINE', ME));
const theirsOnly = members(agent('AGT-MINE', OTHER));
const mixed = members(agent('AGT-MINE', ME), agent('AGT-THEIRS', OTHER));
const mixedTheirs = members(agent('AGT-MINE', OTHER), agent('AGT-THEIRS', ME));

const verdict = (a: { ok: true } | { ok: false; reason: string } | null) => (a === null ? 'hidden' : a.ok ? 'yes' : 'no');

describe('boardRules', () => {
  const reassign: Array<[string, Room, Members | undefined, TaskStatus, string]> = [
    ['a finished task', room('admin'), mineOnly, 'done', 'hidden'],
    ['a cancelled task', room('admin'), mineOnly, 'cancelled', 'hidden'],
    ['cross-owner room, admin', room('admin', true), mixed, 'todo', 'yes'],
    ['cross-owner room, member', room('member', true), mineOnly, 'todo', 'no'],
    ['one owner of the agents, me', room('member'), mineOnly, 'doing', 'yes'],
    ['one owner of the agents, someone else', room('admin'), theirsOnly, 'doing', 'no'],
    ['several owners, admin', room('admin'), mixed, 'failed', 'yes'],
    ['several owners, member', room('member'), mixed, 'blocked', 'no'],
    ['members not loaded, member', room('member'), undefined, 'todo', 'no'],
    ['members not loaded, admin', room('admin'), undefined, 'todo', 'yes'],
  ];
  it.each(reassign)('canReassign: %s → %s', (_n, r, m, status, want) => {
    expect(verdict(canReassign(r, ME, m, task('t', status)))).toBe(want);
  });

  const cancel: Array<[string, Room, Members | undefined, TaskStatus, string]> = [
    ['done', room('admin'), mineOnly, 'done', 'hidden'],
    ['cancelled', room('admin'), mineOnly, 'cancelled', 'hidden'],
    ['admin', room('admin'), theirsOnly, 'todo', 'yes'],
    ['assignee’s owner', room('member'), mixed, 'doing', 'yes'],
    ['neither', room('member'), mixedTheirs, 'doing', 'no'],
    ['failed task, neither', room('member'), theirsOnly, 'failed', 'no'],
  ];
  it.each(cancel)('canCancel: %s → %s', (_n, r, m, status, want) => {
    expect(verdict(canCancel(r, ME, m, task('t', status)))).toBe(want);
  });

  const lease = { instance_id: 'inst_1', handle: null, stale: false };
  const release: Array<[string, Room, BoardTask, string]> = [
    ['not doing', room('admin'), task('t', 'todo', { lease }), 'hidden'],
    ['doing without a lease', room('admin'), task('t', 'doing'), 'hidden'],
    ['doing with a lease, admin', room('admin'), task('t', 'doing', { lease }), 'yes'],
    ['doing with a lease, member', room('member'), task('t', 'doing', { lease }), 'no'],
  ];
  it.each(release)('canRelease: %s → %s', (_n, r, t, want) => {
    expect(verdict(canRelease(r, t))).toBe(want);
  });

  const archive: Array<[string, Room, Members, BoardTask, string]> = [
    ['not finished', room('admin'), mineOnly, task('t', 'doing'), 'hidden'],
    ['already archived', room('admin'), mineOnly, task('t', 'done', { archived: true }), 'hidden'],
    ['done, admin', room('admin'), theirsOnly, task('t', 'done'), 'yes'],
    ['failed, assignee’s owner', room('member'), mineOnly, task('t', 'failed'), 'yes'],
    ['cancelled, neither', room('member'), theirsOnly, task('t', 'cancelled'), 'no'],
  ];
  it.each(archive)('canArchive: %s → %s', (_n, r, m, t, want) => {
    expect(verdict(canArchive(r, ME, m, t))).toBe(want);
  });

  const edit: Array<[string, Room, Members, BoardTask, string]> = [
    ['done', room('admin'), mineOnly, task('t', 'done'), 'hidden'],
    ['cancelled', room('admin'), mineOnly, task('t', 'cancelled'), 'hidden'],
    ['archived', room('admin'), mineOnly, task('t', 'failed', { archived: true }), 'hidden'],
    ['todo, admin', room('admin'), theirsOnly, task('t', 'todo'), 'yes'],
    ['blocked, assignee’s owner', room('member'), mineOnly, task('t', 'blocked'), 'yes'],
    ['doing, neither', room('member'), theirsOnly, task('t', 'doing'), 'no'],
  ];
  it.each(edit)('canEdit: %s → %s', (_n, r, m, t, want) => {
    expect(verdict(canEdit(r, ME, m, t))).toBe(want);
  });

  it('every refusal gives a reason to show', () => {
    const refusals = [
      canReassign(room('member', true), ME, mineOnly, task('t', 'todo')),
      canCancel(room('member'), ME, theirsOnly, task('t', 'todo')),
      canRelease(room('member'), task('t', 'doing', { lease })),
      canArchive(room('member'), ME, theirsOnly, task('t', 'done')),
      canEdit(room('member'), ME, theirsOnly, task('t', 'todo')),
    ];
    for (const r of refusals) {
      expect(r?.ok).toBe(false);
      if (r && !r.ok) expect(r.reason.length).toBeGreaterThan(10);
    }
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
    const b: Board<BoardTask> = {
      lanes: [
        { assignee: 'A', handle: '@a', tasks: [ready, waiting] },
        { assignee: 'B', handle: '@b', tasks: [doing, ready] },
      ],
      done: [done, doing],
    };
    expect(allTasks(b).map((t) => t.task_id)).toEqual(['ready', 'waiting', 'doing', 'done']);
    expect(allTasks(undefined)).toEqual([]);
    expect(allTasks({ lanes: [], done: [] })).toEqual([]);
  });

  describe('wouldCycle', () => {
    // a → b → c (a depends on b, b on c); d stands alone.
    const tasks = [
      { task_id: 'a', depends_on: ['b'] },
      { task_id: 'b', depends_on: ['c'] },
      { task_id: 'c', depends_on: [] },
      { task_id: 'd', depends_on: [] },
    ];
    const table: Array<[string, string[], boolean]> = [
      ['c', ['a'], true], // c → a → b → c
      ['c', ['b'], true],
      ['b', ['a'], true],
      ['a', ['a'], true], // itself
      ['a', ['c'], false], // already reachable, no loop
      ['d', ['a', 'b', 'c'], false],
      ['c', ['d'], false],
      ['a', [], false],
      ['new', ['a'], false], // a task not on the board yet
    ];
    it.each(table)('%s depending on %j → %s', (id, deps, want) => {
      expect(wouldCycle(tasks, id, deps)).toBe(want);
    });
    it('replaces the task’s current dependencies instead of adding to them', () => {
      // As stored, c depends on a (a loop); the edit gives c other dependencies, so the stored edge no longer counts.
      const stored = tasks.map((t) => (t.task_id === 'c' ? { task_id: 'c', depends_on: ['a'] } : t));
      expect(wouldCycle(stored, 'c', ['d'])).toBe(false);
      expect(wouldCycle(stored, 'c', [])).toBe(false);
      expect(wouldCycle(stored, 'c', ['b'])).toBe(true);
    });
  });
});
