import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { immediate } from '../db/open.js';
import { recordRenewal, recordTaskEvent, SERVER } from './events.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import type { TaskStatus } from './transitions.js';
import type { TaskWorktreeState, WorktreeInfo } from '../core.js';
import type { z } from 'zod';
import type { taskRecord as taskRecordSchema } from '../../../shared/schemas/tasks.js';

/** docs/contract.md "Limits": a doing task whose lease was not renewed for this long is flagged stale. */
export const LEASE_STALE_MS = 120_000;

export interface TaskRow {
  id: string;
  room_id: string;
  title: string;
  detail: string | null;
  definition_of_done: string;
  assignee: string;
  sort_order: number | null;
  status: TaskStatus;
  consent_state: 'auto' | 'accepted';
  lease_instance_id: string | null;
  lease_renewed_at: number | null;
  /** The lease's holder is gone (its run ended, its session closed): stale at once, still doing. */
  lease_gone_at: number | null;
  /** This task is the retry of that failed one. */
  retry_of: string | null;
  result_ref: string | null;
  reason: string | null;
  summary: string | null;
  artifacts: string;
  next: string | null;
  handoff_notes: string | null;
  created_by_kind: 'agent' | 'human';
  created_by_plate: string | null;
  created_by_owner: string;
  assign_count: number;
  completed_at: number | null;
  archived_at: number | null;
  created_at: number;
  updated_at: number;
  /** Its worktree as JSON (WorktreeInfo), once a run made it (docs/worktrees.md). */
  worktree: string | null;
  /** Why it has no worktree (the workspace is not a git repository, git failed), when it has none. */
  worktree_reason: string | null;
  /** The worktree was removed (merged, cancelled, archived). */
  worktree_removed_at: number | null;
  /** Its branch was merged into its base (docs/review.md): the commit, when, by which owner. */
  merged_commit: string | null;
  merged_at: number | null;
  merged_by: string | null;
  /** A follow-up: the done task whose review asked for changes (it shares that task's branch and worktree). */
  follow_up_of: string | null;
  /** JSON: the paths its branch changes, as last computed (docs/review.md "Overlaps"). */
  changed_paths: string | null;
}

/** The public task record: what every task tool returns (shared/schemas/tasks.ts `taskRecord`). */
export type TaskRecord = z.output<typeof taskRecordSchema>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function isStale(r: Pick<TaskRow, 'status' | 'lease_renewed_at' | 'lease_gone_at'>, now = Date.now()): boolean {
  return r.status === 'doing' && (r.lease_gone_at !== null || (r.lease_renewed_at !== null && now - r.lease_renewed_at > LEASE_STALE_MS));
}

/** The public task record; `handles` caches plate -> handle across a board. */
export function toRecord(
  db: Db,
  r: TaskRow,
  dependsOn: string[],
  blockedBy: string[],
  handles: Map<string, string> = new Map(),
  now = Date.now(),
): TaskRecord {
  let handle = handles.get(r.assignee);
  if (handle === undefined) {
    const a = getAgentByPlate(db, r.assignee);
    handle = a ? agentHandle(a) : '';
    handles.set(r.assignee, handle);
  }
  return {
    task_id: r.id,
    room: r.room_id,
    title: r.title,
    detail: r.detail,
    definition_of_done: r.definition_of_done,
    assignee: r.assignee,
    assignee_handle: handle,
    order: r.sort_order,
    depends_on: dependsOn,
    status: r.status,
    consent_state: r.consent_state,
    blocked_by: blockedBy,
    lease: { instance_id: r.lease_instance_id, renewed_at: iso(r.lease_renewed_at), stale: isStale(r, now) },
    result_ref: r.result_ref,
    reason: r.reason,
    summary: r.summary,
    artifacts: r.artifacts === '[]' ? [] : (JSON.parse(r.artifacts) as string[]),
    next: r.next,
    handoff_notes: r.handoff_notes,
    archived: r.archived_at !== null,
    completed_at: iso(r.completed_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
    ...(r.retry_of ? { retry_of: r.retry_of } : {}),
    ...(r.follow_up_of ? { follow_up_of: r.follow_up_of } : {}),
    ...worktreeFields(r),
    merged: mergedOf(r),
  };
}

/**
 * Makes `id` the follow-up of `first` (docs/review.md): it works on the first one's branch and in
 * its worktree, which the first one hands over (one task holds a worktree at a time).
 */
export function makeFollowUp(db: Db, id: string, first: string): void {
  const f = getTaskRow(db, first);
  stmt(db, 'UPDATE tasks SET follow_up_of = ?, worktree = ?, worktree_reason = ? WHERE id = ?').run(first, f?.worktree_removed_at === null ? (f?.worktree ?? null) : null, f?.worktree_reason ?? null, id);
  if (f?.worktree && f.worktree_removed_at === null) stmt(db, 'UPDATE tasks SET worktree_removed_at = ?, worktree_reason = ? WHERE id = ?').run(Date.now(), `handed to its follow-up ${id}`, first);
}

/** At most this many changed paths are kept per task for overlaps (the changes' own bound). */
export const CHANGED_PATHS_MAX = 300;

/** Keeps the paths a task's branch changes (as the changes were last computed); true when they differ from before. */
export function recordChangedPaths(db: Db, id: string, paths: readonly string[]): boolean {
  const json = JSON.stringify([...new Set(paths)].sort().slice(0, CHANGED_PATHS_MAX));
  return stmt(db, 'UPDATE tasks SET changed_paths = ? WHERE id = ? AND changed_paths IS NOT ?').run(json, id, json).changes === 1;
}

/** Another open task whose branch changes the same files (the record's `overlaps`, /v1 only). */
export type Overlap = NonNullable<TaskRecord['overlaps']>[number];

/**
 * Open tasks of a room whose branches change the same files (docs/review.md "Overlaps"): per task,
 * the others it shares paths with. Open: a worktree not removed or merged, not archived or cancelled.
 */
export function roomOverlaps(db: Db, roomId: string): Map<string, Overlap[]> {
  const rows = stmt(
    db,
    `SELECT id, title, changed_paths FROM tasks WHERE room_id = ? AND changed_paths IS NOT NULL AND changed_paths <> '[]'
       AND worktree_removed_at IS NULL AND merged_commit IS NULL AND archived_at IS NULL AND status <> 'cancelled' LIMIT 200`,
  ).all(roomId) as Array<{ id: string; title: string; changed_paths: string }>;
  const out = new Map<string, Overlap[]>();
  if (rows.length < 2) return out;
  const sets = rows.map((r) => ({ id: r.id, title: r.title, paths: new Set(JSON.parse(r.changed_paths) as string[]) }));
  for (let i = 0; i < sets.length; i++) {
    for (let j = i + 1; j < sets.length; j++) {
      const [a, b] = [sets[i]!, sets[j]!];
      const shared = [...a.paths].filter((p) => b.paths.has(p));
      if (!shared.length) continue;
      out.set(a.id, [...(out.get(a.id) ?? []), { task_id: b.id, title: b.title, paths: shared }]);
      out.set(b.id, [...(out.get(b.id) ?? []), { task_id: a.id, title: a.title, paths: shared }]);
    }
  }
  return out;
}

/** The task's branch was merged into its base: what the record says from now on (docs/review.md). */
export function recordTaskMerged(db: Db, id: string, m: { commit: string; by: string }, now: number): boolean {
  return stmt(db, 'UPDATE tasks SET merged_commit = ?, merged_at = ?, merged_by = ?, updated_at = ? WHERE id = ? AND merged_commit IS NULL').run(m.commit, now, m.by, now, id).changes === 1;
}

/** When the task's branch landed, into which branch, by whom (docs/review.md); null before. */
export function mergedOf(r: Pick<TaskRow, 'merged_commit' | 'merged_at' | 'merged_by' | 'worktree'>): TaskRecord['merged'] {
  if (!r.merged_commit || r.merged_at === null) return null;
  return { commit: r.merged_commit, at: iso(r.merged_at)!, by: r.merged_by ?? '', into: r.worktree ? (JSON.parse(r.worktree) as WorktreeInfo).base_branch : '' };
}

/** Not made yet: the first run on the task makes it (docs/worktrees.md). */
export const WORKTREE_NOT_YET = 'none yet: a worktree is made the first time a run works on this task';
export const WORKTREE_REMOVED = 'removed: the task was merged, cancelled or archived';
export const WORKTREE_MERGED = 'removed: the task was merged into its base branch';

function worktreeFields(r: Pick<TaskRow, 'worktree' | 'worktree_reason' | 'worktree_removed_at' | 'merged_commit'>): { worktree: WorktreeInfo | null; worktree_reason: string | null } {
  if (r.worktree_removed_at !== null) return { worktree: null, worktree_reason: r.merged_commit ? WORKTREE_MERGED : (r.worktree_reason ?? WORKTREE_REMOVED) };
  if (r.worktree) return { worktree: JSON.parse(r.worktree) as WorktreeInfo, worktree_reason: null };
  return { worktree: null, worktree_reason: r.worktree_reason ?? WORKTREE_NOT_YET };
}

/** The taskWakes port's view of a task's worktree (core.ts TaskWorktreeState). */
export function taskWorktreeState(db: Db, id: string): TaskWorktreeState | undefined {
  const r = getTaskRow(db, id);
  if (!r) return undefined;
  return {
    room: r.room_id,
    title: r.title,
    status: r.status,
    archived: r.archived_at !== null,
    merged: r.merged_commit !== null,
    worktree: r.worktree ? (JSON.parse(r.worktree) as WorktreeInfo) : null,
    reason: r.worktree_reason,
    removed: r.worktree_removed_at !== null,
  };
}

/** Records a task's worktree, or why it has none, or that it was removed (the record is kept: its branch and base stay known). */
export function recordTaskWorktree(db: Db, id: string, change: { worktree: WorktreeInfo | null; reason: string | null } | { removed: true }): void {
  if ('removed' in change) {
    stmt(db, 'UPDATE tasks SET worktree_removed_at = ?, worktree_reason = NULL WHERE id = ? AND worktree_removed_at IS NULL').run(Date.now(), id);
    return;
  }
  stmt(db, 'UPDATE tasks SET worktree = coalesce(?, worktree), worktree_reason = ? WHERE id = ?').run(
    change.worktree ? JSON.stringify(change.worktree) : null,
    change.reason,
    id,
  );
}

export function getTaskRow(db: Db, id: string): TaskRow | undefined {
  return stmt(db, 'SELECT * FROM tasks WHERE id = ?').get(id) as TaskRow | undefined;
}

export function depsOf(db: Db, id: string): string[] {
  return (stmt(db, 'SELECT depends_on FROM task_deps WHERE task_id = ? ORDER BY rowid').all(id) as Array<{ depends_on: string }>).map(
    (r) => r.depends_on,
  );
}

/** Prerequisites of a task that are not done yet. */
export function openDepsOf(db: Db, id: string): string[] {
  return (
    stmt(
      db,
      `SELECT d.depends_on FROM task_deps d JOIN tasks p ON p.id = d.depends_on
       WHERE d.task_id = ? AND p.status <> 'done' ORDER BY d.rowid`,
    ).all(id) as Array<{ depends_on: string }>
  ).map((r) => r.depends_on);
}

export function taskRecord(db: Db, id: string): TaskRecord | undefined {
  const r = getTaskRow(db, id);
  return r && toRecord(db, r, depsOf(db, id), openDepsOf(db, id));
}

export function replaceDeps(db: Db, id: string, deps: readonly string[]): void {
  stmt(db, 'DELETE FROM task_deps WHERE task_id = ?').run(id);
  for (const d of deps) stmt(db, 'INSERT INTO task_deps (task_id, depends_on) VALUES (?, ?)').run(id, d);
}

/**
 * Would `id` depending on `deps` close a cycle? True when some dep already reaches `id`
 * through existing edges (self, two-cycles and long cycles alike).
 */
export function wouldCycle(db: Db, id: string, deps: readonly string[]): boolean {
  const seen = new Set<string>();
  const stack = [...deps];
  while (stack.length) {
    const t = stack.pop()!;
    if (t === id) return true;
    if (seen.has(t)) continue;
    seen.add(t);
    for (const r of stmt(db, 'SELECT depends_on FROM task_deps WHERE task_id = ?').all(t) as Array<{ depends_on: string }>) {
      stack.push(r.depends_on);
    }
  }
  return false;
}

/** Tasks that depend directly on `id`. */
export function dependentsOf(db: Db, id: string): TaskRow[] {
  return stmt(db, 'SELECT t.* FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.depends_on = ? ORDER BY t.created_at, t.id').all(
    id,
  ) as TaskRow[];
}

/**
 * The atomic claim: todo -> doing for the assignee, only while no prerequisite is open.
 * One conditional UPDATE … RETURNING; run it inside an immediate transaction.
 */
export function casClaim(db: Db, id: string, plate: string, instanceId: string, now: number): TaskRow | undefined {
  return stmt(
    db,
    `UPDATE tasks SET status = 'doing', lease_instance_id = ?, lease_renewed_at = ?, lease_gone_at = NULL, updated_at = ?
     WHERE id = ? AND assignee = ? AND status = 'todo' AND archived_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM task_deps d JOIN tasks p ON p.id = d.depends_on WHERE d.task_id = tasks.id AND p.status <> 'done')
     RETURNING *`,
  ).get(instanceId, now, now, id, plate) as TaskRow | undefined;
}

// ---- the writes of task mutations (tasks/service.ts decides; these run inside its transaction)

export interface NewTask {
  id: string;
  roomId: string;
  title: string;
  detail: string | null;
  definitionOfDone: string;
  assignee: string;
  sortOrder: number | null;
  consent: TaskRow['consent_state'];
  createdByKind: TaskRow['created_by_kind'];
  createdByPlate: string | null;
  createdByOwner: string;
}

export function insertTask(db: Db, t: NewTask, now: number): void {
  stmt(
    db,
    `INSERT INTO tasks (id, room_id, title, detail, definition_of_done, assignee, sort_order, consent_state,
       created_by_kind, created_by_plate, created_by_owner, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(t.id, t.roomId, t.title, t.detail, t.definitionOfDone, t.assignee, t.sortOrder, t.consent, t.createdByKind, t.createdByPlate, t.createdByOwner, now, now);
}

/** Marks a new task as the retry of a failed one; false when that one was already retried. */
export function setRetryOf(db: Db, id: string, failedId: string): boolean {
  return stmt(db, 'UPDATE OR IGNORE tasks SET retry_of = ? WHERE id = ?').run(failedId, id).changes === 1;
}

/** The retry of a failed task, if it has one. */
export function retryOfTask(db: Db, failedId: string): string | undefined {
  return (stmt(db, 'SELECT id FROM tasks WHERE retry_of = ?').get(failedId) as { id: string } | undefined)?.id;
}

/** Tasks that depended on `from` depend on `to` instead (a retry takes the failed task's place). */
export function repointDependents(db: Db, from: string, to: string): void {
  stmt(db, 'UPDATE OR IGNORE task_deps SET depends_on = ? WHERE depends_on = ?').run(to, from);
}

/** The editable fields of a task, written whole (the caller merges the patch). */
export function writeTaskFields(
  db: Db,
  id: string,
  f: Pick<TaskRow, 'title' | 'detail' | 'definition_of_done' | 'sort_order'>,
  now: number,
): void {
  stmt(db, 'UPDATE tasks SET title = ?, detail = ?, definition_of_done = ?, sort_order = ?, updated_at = ? WHERE id = ?').run(
    f.title,
    f.detail,
    f.definition_of_done,
    f.sort_order,
    now,
    id,
  );
}

/** Leaves doing: the lease goes with it. */
const LEAVE_DOING = 'lease_instance_id = NULL, lease_renewed_at = NULL, lease_gone_at = NULL';

/** doing -> todo while `instanceId` holds the lease; the room of the task that moved, if it did. */
export function returnLeaseOf(db: Db, id: string, instanceId: string, now: number): string | undefined {
  const r = stmt(db, `UPDATE tasks SET status = 'todo', ${LEAVE_DOING}, updated_at = ? WHERE id = ? AND status = 'doing' AND lease_instance_id = ? RETURNING room_id`).get(
    now,
    id,
    instanceId,
  ) as { room_id: string } | undefined;
  return r?.room_id;
}

/** The lease heartbeat: only the holding instance of a doing task renews it. */
export function renewLeaseOf(db: Db, id: string, instanceId: string, now: number): boolean {
  return stmt(db, "UPDATE tasks SET lease_renewed_at = ?, lease_gone_at = NULL WHERE id = ? AND status = 'doing' AND lease_instance_id = ? RETURNING id").get(now, id, instanceId) !== undefined;
}

/** doing -> todo, the lease gone (a release). */
export function releaseToTodo(db: Db, id: string, now: number): void {
  stmt(db, `UPDATE tasks SET status = 'todo', ${LEAVE_DOING}, updated_at = ? WHERE id = ? AND status = 'doing'`).run(now, id);
}

/** Any status -> cancelled, the lease gone. */
export function cancelTaskRow(db: Db, id: string, now: number): void {
  stmt(db, `UPDATE tasks SET status = 'cancelled', ${LEAVE_DOING}, updated_at = ? WHERE id = ?`).run(now, id);
}

export interface StatusStep {
  reason: string | null;
  resultRef?: string;
  summary?: string;
  artifacts?: string[];
  next?: string;
  handoffNotes?: string;
}

/**
 * A status step and its board record, only if the task is still in the status and with the
 * assignee it was read with (false otherwise). Leaving doing drops the lease; done stamps completed_at.
 */
export function writeStatusStep(db: Db, t: Pick<TaskRow, 'id' | 'status' | 'assignee'>, to: TaskStatus, step: StatusStep, now: number): boolean {
  const leaving = to !== 'doing';
  const r = stmt(
    db,
    `UPDATE tasks SET status = ?, reason = ?, result_ref = coalesce(?, result_ref), summary = coalesce(?, summary),
       artifacts = coalesce(?, artifacts), next = coalesce(?, next), handoff_notes = coalesce(?, handoff_notes),
       completed_at = CASE WHEN ? = 'done' THEN ? ELSE completed_at END,
       lease_instance_id = CASE WHEN ? THEN NULL ELSE lease_instance_id END,
       lease_renewed_at = CASE WHEN ? THEN NULL ELSE lease_renewed_at END,
       lease_gone_at = CASE WHEN ? THEN NULL ELSE lease_gone_at END,
       updated_at = ?
     WHERE id = ? AND status = ? AND assignee = ?`,
  ).run(
    to,
    step.reason,
    step.resultRef ?? null,
    step.summary ?? null,
    step.artifacts ? JSON.stringify(step.artifacts) : null,
    step.next ?? null,
    step.handoffNotes ?? null,
    to,
    now,
    leaving ? 1 : 0,
    leaving ? 1 : 0,
    leaving ? 1 : 0,
    now,
    t.id,
    t.status,
    t.assignee,
  );
  return r.changes === 1;
}

/** The handoff of a completed task to one direct successor (once per pair). */
export function insertHandoff(db: Db, id: string, from: Pick<TaskRow, 'id' | 'room_id' | 'assignee'>, to: Pick<TaskRow, 'id' | 'assignee'>, notes: string, now: number): void {
  stmt(
    db,
    `INSERT OR IGNORE INTO task_handoffs (id, room_id, from_task_id, to_task_id, from_plate, to_plate, notes, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, from.room_id, from.id, to.id, from.assignee, to.assignee, notes, now);
}

/** A new assignee (the status is unchanged); assign_count keys the assignment wake. */
export function reassignTaskRow(db: Db, id: string, plate: string, consent: TaskRow['consent_state'], now: number): void {
  stmt(db, 'UPDATE tasks SET assignee = ?, consent_state = ?, assign_count = assign_count + 1, updated_at = ? WHERE id = ?').run(plate, consent, now, id);
}

export function archiveTaskRow(db: Db, id: string, now: number): void {
  stmt(db, 'UPDATE tasks SET archived_at = ?, updated_at = ? WHERE id = ?').run(now, now, id);
}

/** The ids of an agent's open tasks in a room (todo, doing, blocked; not archived), in lane order. */
export function openTaskIdsOf(db: Db, roomId: string, plate: string): string[] {
  return (
    stmt(
      db,
      `SELECT id FROM tasks WHERE room_id = ? AND assignee = ? AND archived_at IS NULL AND status IN ('todo', 'doing', 'blocked')
     ORDER BY sort_order IS NULL, sort_order, created_at, id`,
    ).all(roomId, plate) as Array<{ id: string }>
  ).map((r) => r.id);
}

export interface HandoffRow {
  from_task_id: string;
  to_task_id: string;
  from_plate: string;
  notes: string;
  created_at: number;
}

/** The newest handoff note addressed to an agent in a room. */
export function latestHandoffTo(db: Db, roomId: string, plate: string): HandoffRow | undefined {
  return stmt(
    db,
    `SELECT from_task_id, to_task_id, from_plate, notes, created_at FROM task_handoffs
     WHERE room_id = ? AND to_plate = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  ).get(roomId, plate) as HandoffRow | undefined;
}

/** How many tasks an agent completed (done), in all rooms. */
export function doneTaskCount(db: Db, plate: string): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM tasks WHERE assignee = ? AND status = 'done'").get(plate) as { n: number }).n;
}

/**
 * An SQL condition for a query of another capability that must stay one query (a path
 * reservation lives only while its task is open): the task `taskSql` is open (todo, doing,
 * blocked), not archived, and its lease is not stale at `nowSql`.
 */
export function taskOpenSql(taskSql: string, nowSql: string): string {
  return `EXISTS (
    SELECT 1 FROM tasks t WHERE t.id = ${taskSql} AND t.archived_at IS NULL AND t.status IN ('todo', 'doing', 'blocked')
      AND NOT (t.status = 'doing' AND (t.lease_gone_at IS NOT NULL OR (t.lease_renewed_at IS NOT NULL AND t.lease_renewed_at < ${nowSql} - ${LEASE_STALE_MS}))))`;
}

/** Why a task wake has nothing left to do: the task moved to someone else, or is over. */
export function taskWakeStaleReason(db: Db, taskId: string, plate: string): string | undefined {
  const t = getTaskRow(db, taskId);
  if (!t) return 'the task no longer exists';
  if (t.assignee !== plate) return 'the task was reassigned to another agent';
  if (t.archived_at !== null) return 'the task was archived';
  if (t.status === 'done' || t.status === 'cancelled') return `the task is already ${t.status}`;
  return undefined;
}

/**
 * The holder of these leases is gone (a runner's run ended, a session closed): its doing tasks
 * (only `taskId`, when given) are flagged stale at once. They stay doing with the lease: the
 * specification releases no lease by itself; a human releases, retries or reassigns.
 * Returns the rooms whose board changed.
 */
export function markLeaseHolderGone(db: Db, instanceId: string, taskId: string | undefined, now: number): string[] {
  return immediate(db, () => {
    const rows = (
      taskId === undefined
        ? stmt(db, "UPDATE tasks SET lease_gone_at = ? WHERE lease_instance_id = ? AND status = 'doing' AND lease_gone_at IS NULL RETURNING id, room_id").all(now, instanceId)
        : stmt(db, "UPDATE tasks SET lease_gone_at = ? WHERE lease_instance_id = ? AND id = ? AND status = 'doing' AND lease_gone_at IS NULL RETURNING id, room_id").all(
            now,
            instanceId,
            taskId,
          )
    ) as Array<{ id: string; room_id: string }>;
    for (const r of rows) recordTaskEvent(db, { task: r, kind: 'lease_gone', actor: SERVER, at: now, reason: 'the run or session holding the lease ended', detail: { instance_id: instanceId } });
    return [...new Set(rows.map((r) => r.room_id))];
  });
}

/** The server keeps a running run's lease fresh (the taskWakes port): a renewal like the agent's own, recorded collapsed. */
export function renewRunnerLease(db: Db, taskId: string, instanceId: string, now: number): void {
  immediate(db, () => {
    const t = getTaskRow(db, taskId);
    if (t && renewLeaseOf(db, taskId, instanceId, now)) recordRenewal(db, t, { kind: 'agent', plate: t.assignee }, instanceId, now);
  });
}

/** Tasks whose lease this instance holds (list_instances' "working on"). */
export function tasksHeldBy(db: Db, instanceId: string): Array<{ task_id: string; title: string; room: string }> {
  return stmt(db, "SELECT id AS task_id, title, room_id AS room FROM tasks WHERE lease_instance_id = ? AND status = 'doing'").all(
    instanceId,
  ) as Array<{ task_id: string; title: string; room: string }>;
}

const BOARD_COLUMNS = [
  'id', 'room_id', 'title', 'detail', 'definition_of_done', 'assignee', 'sort_order', 'status', 'consent_state',
  'lease_instance_id', 'lease_renewed_at', 'result_ref', 'reason', 'summary', 'artifacts', 'next', 'handoff_notes',
  'created_by_kind', 'created_by_plate', 'created_by_owner', 'assign_count', 'completed_at', 'archived_at', 'created_at', 'updated_at',
  'lease_gone_at', 'retry_of',
] as const;

/**
 * A room's tasks in lane order (order, unset last, then creation). Read in raw mode and
 * shaped here: on a 10,000-task board that is several times faster than row objects.
 */
export function roomTaskRows(db: Db, roomId: string): TaskRow[] {
  const q = stmt(db, `SELECT ${BOARD_COLUMNS.join(', ')} FROM tasks WHERE room_id = ? ORDER BY sort_order IS NULL, sort_order, created_at, id`);
  const raw = q.raw(true).all(roomId) as unknown[][];
  q.raw(false);
  return raw.map((v) => ({
    id: v[0], room_id: v[1], title: v[2], detail: v[3], definition_of_done: v[4], assignee: v[5], sort_order: v[6], status: v[7],
    consent_state: v[8], lease_instance_id: v[9], lease_renewed_at: v[10], result_ref: v[11], reason: v[12], summary: v[13],
    artifacts: v[14], next: v[15], handoff_notes: v[16], created_by_kind: v[17], created_by_plate: v[18], created_by_owner: v[19],
    assign_count: v[20], completed_at: v[21], archived_at: v[22], created_at: v[23], updated_at: v[24], lease_gone_at: v[25], retry_of: v[26],
  }) as TaskRow);
}

/** Every dependency edge of a room, with whether the prerequisite is done. */
export function roomDeps(db: Db, roomId: string): Array<{ task_id: string; depends_on: string; done: number }> {
  return stmt(
    db,
    `SELECT d.task_id, d.depends_on, p.status = 'done' AS done FROM task_deps d
     JOIN tasks t ON t.id = d.task_id JOIN tasks p ON p.id = d.depends_on
     WHERE t.room_id = ? ORDER BY d.rowid`,
  ).all(roomId) as Array<{ task_id: string; depends_on: string; done: number }>;
}

/**
 * What waits on a human in one room (docs/needs-you.md): blocked and failed tasks, doing tasks
 * whose lease went stale, and todo tasks that depend on a failed one. Newest change first,
 * at most `limit` rows; archived tasks are left out.
 */
export function needsAttentionRows(db: Db, roomId: string, limit: number, now = Date.now()): Array<TaskRow & { failed_dep: string | null }> {
  return stmt(
    db,
    `SELECT t.*, (SELECT d.depends_on FROM task_deps d JOIN tasks p ON p.id = d.depends_on
                   WHERE d.task_id = t.id AND p.status = 'failed' LIMIT 1) AS failed_dep
       FROM tasks t
      WHERE t.room_id = ? AND t.archived_at IS NULL
        AND (t.status IN ('blocked', 'failed')
             OR (t.status = 'doing' AND t.lease_renewed_at IS NOT NULL AND t.lease_renewed_at < ?)
             OR (t.status = 'todo' AND EXISTS (SELECT 1 FROM task_deps d JOIN tasks p ON p.id = d.depends_on
                                               WHERE d.task_id = t.id AND p.status = 'failed')))
      ORDER BY t.updated_at DESC LIMIT ?`,
  ).all(roomId, now - LEASE_STALE_MS, limit) as Array<TaskRow & { failed_dep: string | null }>;
}
