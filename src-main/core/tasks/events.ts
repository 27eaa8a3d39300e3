import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import type { Caller } from '../usecase/define.js';
import { handleOfPlate } from '../agents/handles.js';
import { getOwner } from '../owners/store.js';
import type { z } from 'zod';
import type { TASK_EVENT_KINDS, taskEvent } from '../../../shared/schemas/tasks.js';

/**
 * A task's history, recorded (docs/tasks.md "History"): every change to a task writes one event
 * here inside the transaction of the change, naming who acted. Wakes of a task are written by
 * the triggers of migration 0020 (wakes never import tasks). Read back paged by `seq`.
 */

export type TaskEventKind = (typeof TASK_EVENT_KINDS)[number];

/** Who acted, as stored: an owner, an agent's plate, or the server itself (a running receipt, a lease whose holder went). */
export type EventActor = { kind: 'human'; ownerId: string } | { kind: 'agent'; plate: string } | { kind: 'server' };

export const SERVER: EventActor = { kind: 'server' };

export function actorOf(c: Caller | { kind: 'agent'; plate: string }): EventActor {
  return c.kind === 'agent' ? { kind: 'agent', plate: c.plate } : { kind: 'human', ownerId: c.ownerId };
}

export interface TaskEventInput {
  task: { id: string; room_id: string };
  kind: TaskEventKind;
  actor: EventActor;
  from?: string | null;
  to?: string | null;
  reason?: string | null;
  wakeId?: string;
  detail?: Record<string, unknown>;
  at?: number;
}

/** Bounds what one event keeps of free text (a reason, a summary): the task record keeps it whole. */
const TEXT_MAX = 500;
const cut = (s: string | null | undefined) => (s == null ? null : s.length > TEXT_MAX ? `${s.slice(0, TEXT_MAX - 1)}…` : s);

function actorColumns(a: EventActor): [string, string] {
  return a.kind === 'human' ? ['human', a.ownerId] : a.kind === 'agent' ? ['agent', a.plate] : ['server', 'server'];
}

/** Writes one event; call it inside the transaction that makes the change. */
export function recordTaskEvent(db: Db, e: TaskEventInput): void {
  const [kind, id] = actorColumns(e.actor);
  const detail = e.detail && Object.keys(e.detail).length ? JSON.stringify(e.detail, (_k, v: unknown) => (typeof v === 'string' ? cut(v) : v)) : null;
  stmt(
    db,
    `INSERT INTO task_events (task_id, room_id, at, kind, actor_kind, actor_id, from_value, to_value, reason, wake_id, detail)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(e.task.id, e.task.room_id, e.at ?? Date.now(), e.kind, kind, id, e.from ?? null, e.to ?? null, cut(e.reason), e.wakeId ?? null, detail);
}

/**
 * A lease renewal, collapsed: one `lease_renewed` event per claim, its count and last time kept
 * in its detail, so a run's heartbeats (every 30 s for hours) add one row, not thousands. The
 * first renewal after a claim writes it; every later one updates it in place.
 */
export function recordRenewal(db: Db, task: { id: string; room_id: string }, actor: EventActor, instanceId: string, now: number): void {
  const claim = stmt(db, "SELECT max(seq) AS seq FROM task_events WHERE task_id = ? AND kind = 'claimed'").get(task.id) as { seq: number | null };
  const since = claim.seq ?? 0;
  const r = stmt(
    db,
    `UPDATE task_events SET detail = json_set(detail, '$.count', json_extract(detail, '$.count') + 1, '$.last_at', ?)
     WHERE seq = (SELECT max(seq) FROM task_events WHERE task_id = ? AND kind = 'lease_renewed' AND seq > ?)`,
  ).run(new Date(now).toISOString(), task.id, since);
  if (r.changes === 0) recordTaskEvent(db, { task, kind: 'lease_renewed', actor, at: now, detail: { instance_id: instanceId, count: 1, last_at: new Date(now).toISOString() } });
}

interface EventRow {
  seq: number;
  at: number;
  kind: TaskEventKind;
  actor_kind: 'human' | 'agent' | 'server';
  actor_id: string;
  from_value: string | null;
  to_value: string | null;
  reason: string | null;
  wake_id: string | null;
  detail: string | null;
}

/** One recorded change as the history shows it (shared/schemas/tasks.ts `taskEvent`). */
export type TaskEventRecord = z.output<typeof taskEvent>;

/** The kinds whose from/to are agents' plates (named by their handles beside them). */
const PLATE_ENDS: ReadonlySet<TaskEventKind> = new Set(['reassigned', 'created', 'wake_queued', 'wake_held', 'wake_handled', 'wake_failed']);

export const HISTORY_LIMIT_DEFAULT = 50;
export const HISTORY_LIMIT_MAX = 200;

/**
 * One page of a task's history, oldest first, after `after` (a seq). Bounded: at most 200 events;
 * each handle is looked up once per page (a deleted agent has none: its plate shows).
 */
export function taskHistory(db: Db, taskId: string, page: { after?: number; limit?: number } = {}): { events: TaskEventRecord[]; next_cursor: number | null } {
  const limit = Math.min(page.limit ?? HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX);
  const rows = stmt(db, 'SELECT * FROM task_events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(taskId, page.after ?? 0, limit + 1) as EventRow[];
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const agents = new Map<string, string | undefined>();
  const people = new Map<string, string | undefined>();
  const agentHandle = (plate: string) => {
    if (!agents.has(plate)) agents.set(plate, handleOfPlate(db, plate));
    return agents.get(plate);
  };
  const personName = (id: string) => {
    if (!people.has(id)) people.set(id, getOwner(db, id)?.name);
    return people.get(id);
  };
  const events = shown.map((r): TaskEventRecord => {
    const handle = r.actor_kind === 'agent' ? agentHandle(r.actor_id) : r.actor_kind === 'human' ? personName(r.actor_id) : undefined;
    const e: TaskEventRecord = {
      seq: r.seq,
      at: new Date(r.at).toISOString(),
      kind: r.kind,
      actor: { kind: r.actor_kind, id: r.actor_id, ...(handle !== undefined ? { handle } : {}) },
    };
    if (r.from_value !== null) e.from = r.from_value;
    if (r.to_value !== null) e.to = r.to_value;
    if (PLATE_ENDS.has(r.kind)) {
      const fh = r.from_value !== null ? agentHandle(r.from_value) : undefined;
      const th = r.to_value !== null ? agentHandle(r.to_value) : undefined;
      if (fh !== undefined) e.from_handle = fh;
      if (th !== undefined) e.to_handle = th;
    }
    if (r.reason !== null) e.reason = r.reason;
    if (r.wake_id !== null) e.wake_id = r.wake_id;
    if (r.detail !== null) e.detail = JSON.parse(r.detail) as Record<string, unknown>;
    return e;
  });
  return { events, next_cursor: more ? shown[shown.length - 1]!.seq : null };
}
