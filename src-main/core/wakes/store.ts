import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { getAgentByPlate } from '../agents/store.js';
import { trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';

export type WakeTrigger = 'mention' | 'assignment' | 'successor' | 'paths_free';

export interface WakeInput {
  plate: string;
  roomId: string;
  trigger: WakeTrigger;
  taskId?: string;
  messageId?: string;
  /** The model input: the raw message body, or the task payload text. Nothing else is injected. */
  content: string;
  /** One wake per recipient per triggering event: a second enqueue with the same key is ignored. */
  eventKey: string;
  /** Whose action queued it: Trust is checked again against this owner when the wake starts. */
  actorOwnerId?: string;
}

/** Queues a wake (inside the caller's transaction). Returns its id, or undefined if this event already woke the agent. */
export function enqueueWake(db: Db, w: WakeInput): string | undefined {
  const id = newId('wake');
  const r = stmt(
    db,
    `INSERT OR IGNORE INTO wakes (id, plate, room_id, trigger, task_id, message_id, content, event_key, actor_owner_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, w.plate, w.roomId, w.trigger, w.taskId ?? null, w.messageId ?? null, w.content, w.eventKey, w.actorOwnerId ?? null, Date.now());
  return r.changes ? id : undefined;
}

/**
 * May an actor of `actorOwnerId` wake this agent in this room? It must hold INVOKE, not be
 * revoked, and an actor of another owner needs that owner's Trust on for the room, whatever
 * the room's mix of agents (docs/security.md, item 2). The dispatcher checks it all again
 * when the wake starts.
 */
export function mayWake(db: Db, roomId: string, plate: string, actorOwnerId: string): boolean {
  const a = getAgentByPlate(db, plate);
  if (!a || a.revoked_at !== null || !hasScope(a.scopes, 'INVOKE')) return false;
  if (a.owner_id === actorOwnerId) return true;
  return trustMode(db, roomId, a.owner_id) === 'trust_room';
}

export type WakeStatus = 'queued' | 'running' | 'handled' | 'failed';
/** Where a wake went: a channel push, a spawned runner, or the inbox (pull). */
export type WakeTarget = 'channel' | 'runner' | 'pull';

export interface WakeRow {
  seq: number;
  id: string;
  plate: string;
  room_id: string;
  trigger: WakeTrigger;
  task_id: string | null;
  message_id: string | null;
  content: string;
  event_key: string;
  host: string | null;
  instance_id: string | null;
  status: WakeStatus;
  reason: string | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  target: WakeTarget | null;
  context_version: number | null;
  deadline_at: number | null;
  exit_code: number | null;
  stdout_tail: string | null;
  stderr_tail: string | null;
  tool_calls: number | null;
  flagged_no_tool_call: number;
  run_credential_id: string | null;
  actor_owner_id: string | null;
}

export function getWake(db: Db, id: string): WakeRow | undefined {
  return stmt(db, 'SELECT * FROM wakes WHERE id = ?').get(id) as WakeRow | undefined;
}

/** The oldest queued wake of every (agent, room): the only ones that may start (FIFO). */
/**
 * The oldest queued wake of each (agent, room). Wakes parked for a pull client are left out
 * unless `includePull`: they only move when a channel session or runner appears, which the
 * dispatcher checks on its slow poll and on session and runner changes, so the per-message
 * pass does not grow with the inbox backlog.
 */
export function queueHeads(db: Db, includePull = false): WakeRow[] {
  if (includePull) {
    return stmt(
      db,
      `SELECT w.* FROM wakes w
       JOIN (SELECT MIN(seq) AS seq FROM wakes WHERE status = 'queued' GROUP BY plate, room_id) h ON h.seq = w.seq
       ORDER BY w.seq`,
    ).all() as WakeRow[];
  }
  return stmt(
    db,
    `SELECT w.* FROM wakes w
     JOIN (SELECT MIN(seq) AS seq FROM wakes INDEXED BY wakes_dispatchable
           WHERE status = 'queued' AND target IS NOT 'pull' GROUP BY plate, room_id) h ON h.seq = w.seq
     ORDER BY w.seq`,
  ).all() as WakeRow[];
}

/** The oldest queued wake of an (agent, room) before `seq`, if any: FIFO holds across pull-parked wakes. */
export function olderQueued(db: Db, plate: string, roomId: string, seq: number): WakeRow | undefined {
  return stmt(db, "SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND seq < ? ORDER BY seq LIMIT 1").get(
    plate,
    roomId,
    seq,
  ) as WakeRow | undefined;
}

/** Is a wake already running on this queue key (instance, room, host)? */
export function keyBusy(db: Db, instanceId: string, roomId: string, host: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM wakes WHERE status = 'running' AND instance_id = ? AND room_id = ? AND host = ? LIMIT 1").get(
      instanceId,
      roomId,
      host,
    ) !== undefined
  );
}

/** Moves a queued wake to running on a key; false when it was not queued any more (never runs twice). */
export function markRunning(
  db: Db,
  id: string,
  run: { target: 'channel' | 'runner'; host: string; instanceId: string; contextVersion: number; deadlineAt?: number; runCredentialId?: string },
): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = 'running', target = ?, host = ?, instance_id = ?, context_version = ?, deadline_at = ?,
         run_credential_id = ?, reason = NULL, started_at = ?
       WHERE id = ? AND status = 'queued'`,
    ).run(run.target, run.host, run.instanceId, run.contextVersion, run.deadlineAt ?? null, run.runCredentialId ?? null, Date.now(), id)
      .changes === 1
  );
}

/**
 * Notes that an agent's queued wakes in a room wait in the inbox for a pull client (no live
 * channel session, no runner): all of them at once, so none is looked at again per message.
 * Returns how many changed.
 */
export function markPull(db: Db, plate: string, roomId: string): number {
  return stmt(
    db,
    `UPDATE wakes SET target = 'pull', reason = 'waiting in the inbox: no live channel session or runner for this agent'
     WHERE plate = ? AND room_id = ? AND status = 'queued' AND target IS NOT 'pull'`,
  ).run(plate, roomId).changes;
}

export interface RunOutcome {
  exitCode?: number | null;
  stdoutTail?: string;
  stderrTail?: string;
  toolCalls?: number;
  flaggedNoToolCall?: boolean;
}

/** Ends a running wake; false when it had already ended. */
export function finishWake(db: Db, id: string, status: 'handled' | 'failed', reason: string | null, out: RunOutcome = {}): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = ?, reason = ?, ended_at = ?, exit_code = ?, stdout_tail = ?, stderr_tail = ?, tool_calls = ?,
         flagged_no_tool_call = ?
       WHERE id = ? AND status = 'running'`,
    ).run(
      status,
      reason,
      Date.now(),
      out.exitCode ?? null,
      out.stdoutTail ?? null,
      out.stderrTail ?? null,
      out.toolCalls ?? null,
      out.flaggedNoToolCall ? 1 : 0,
      id,
    ).changes === 1
  );
}

/** A queued wake that can never run (agent revoked, left the room, lost INVOKE). */
export function dropQueued(db: Db, id: string, reason: string): void {
  stmt(db, "UPDATE wakes SET status = 'failed', reason = ?, ended_at = ? WHERE id = ? AND status = 'queued'").run(reason, Date.now(), id);
}

/** Channel wakes of this instance in this room: handled now that the instance acted there. */
export function handleChannelWakes(db: Db, instanceId: string, roomId: string): number {
  return stmt(
    db,
    `UPDATE wakes SET status = 'handled', reason = NULL, ended_at = ?
     WHERE status = 'running' AND target = 'channel' AND instance_id = ? AND room_id = ?`,
  ).run(Date.now(), instanceId, roomId).changes;
}

/**
 * A pushed wake the session never took: back to queued, first in its queue again (its seq is
 * unchanged), for the runner or the inbox. Only from running on a channel, so it moves once.
 */
export function requeueChannelWake(db: Db, id: string, reason: string): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = 'queued', target = NULL, host = NULL, instance_id = NULL, deadline_at = NULL, started_at = NULL, reason = ?
       WHERE id = ? AND status = 'running' AND target = 'channel'`,
    ).run(reason, id).changes === 1
  );
}

/** Queued pull wakes of an agent in a room: handled once the agent acted there. */
export function handlePullWakes(db: Db, plate: string, roomId: string): number {
  return stmt(
    db,
    `UPDATE wakes SET status = 'handled', reason = 'handled by pull: the agent acted in the room', ended_at = ?
     WHERE status = 'queued' AND target = 'pull' AND plate = ? AND room_id = ?`,
  ).run(Date.now(), plate, roomId).changes;
}

export function runningWakes(db: Db): WakeRow[] {
  return stmt(db, "SELECT * FROM wakes WHERE status = 'running' ORDER BY seq").all() as WakeRow[];
}

/** Wakes a previous process left running: failed visibly, never run again. Returns them. */
export function failLeftRunning(db: Db, reason: string): WakeRow[] {
  return db.transaction(() => {
    const rows = runningWakes(db);
    for (const r of rows) finishWake(db, r.id, 'failed', reason);
    return rows;
  })();
}

export interface WakeDto {
  wake_id: string;
  plate: string;
  room: string;
  trigger: WakeTrigger;
  task_id: string | null;
  message_id: string | null;
  status: WakeStatus;
  target: WakeTarget | null;
  host: string | null;
  instance_id: string | null;
  reason: string | null;
  context_version: number | null;
  exit_code: number | null;
  stdout_tail: string | null;
  stderr_tail: string | null;
  tool_calls: number | null;
  no_tool_call: boolean;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function wakeDto(r: WakeRow): WakeDto {
  return {
    wake_id: r.id,
    plate: r.plate,
    room: r.room_id,
    trigger: r.trigger,
    task_id: r.task_id,
    message_id: r.message_id,
    status: r.status,
    target: r.target,
    host: r.host,
    instance_id: r.instance_id,
    reason: r.reason,
    context_version: r.context_version,
    exit_code: r.exit_code,
    stdout_tail: r.stdout_tail,
    stderr_tail: r.stderr_tail,
    tool_calls: r.tool_calls,
    no_tool_call: r.flagged_no_tool_call === 1,
    created_at: iso(r.created_at)!,
    started_at: iso(r.started_at),
    ended_at: iso(r.ended_at),
  };
}

/** The wake log, newest first, of a room or an agent (optionally one status). */
export function listWakes(
  db: Db,
  by: { roomId?: string; plate?: string; status?: WakeStatus; messageId?: string; taskId?: string; limit: number; beforeSeq?: number },
): WakeRow[] {
  const where: string[] = [];
  const args: unknown[] = [];
  const filter = (sql: string, v: unknown) => {
    where.push(sql);
    args.push(v);
  };
  if (by.roomId) filter('room_id = ?', by.roomId);
  if (by.plate) filter('plate = ?', by.plate);
  if (by.status) filter('status = ?', by.status);
  if (by.messageId) filter('message_id = ?', by.messageId);
  if (by.taskId) filter('task_id = ?', by.taskId);
  if (by.beforeSeq !== undefined) filter('seq < ?', by.beforeSeq);
  const sql = `SELECT * FROM wakes ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq DESC LIMIT ?`;
  return stmt(db, sql).all(...args, by.limit) as WakeRow[];
}
