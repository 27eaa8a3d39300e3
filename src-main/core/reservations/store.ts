import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { taskOpenSql } from '../tasks/store.js';
import { roomHasAgentSql } from '../rooms/store.js';
import { agentActiveSql } from '../agents/store.js';

export type ReservationState = 'waiting' | 'active';
export type ReleaseCause = 'released' | 'force_released' | 'expired' | 'task_ended' | 'holder_left' | 'wait_cancelled' | 'wait_expired';

export interface ReservationRow {
  seq: number;
  id: string;
  request_id: string;
  room_id: string;
  plate: string;
  pattern: string;
  exclusive: number;
  reason: string | null;
  task_id: string | null;
  state: ReservationState;
  ttl_ms: number;
  created_at: number;
  granted_at: number | null;
  expires_at: number;
}

// The conditions on other capabilities' tables come from their stores (one query still).

/** Its task (if any) is open (todo, doing, blocked), not archived, and its lease is not stale. */
const TASK_OPEN = `(r.task_id IS NULL OR ${taskOpenSql('r.task_id', '@now')})`;

/** The holder is still an agent of the room and not revoked. */
const HOLDER_PRESENT = `(${roomHasAgentSql('r.room_id', 'r.plate')} AND ${agentActiveSql('r.plate')})`;

/**
 * A reservation is alive while its time has not run out, its task (if any) is open and its
 * holder is still in the room. Every read applies this, so an expired or ended reservation
 * disappears at once, before the sweep deletes it.
 */
const ALIVE = `r.expires_at > @now AND ${TASK_OPEN} AND ${HOLDER_PRESENT}`;

/** Why a dead row died (for the release record). */
export function deathCause(db: Db, r: ReservationRow, now: number): ReleaseCause {
  if (r.expires_at <= now) return r.state === 'waiting' ? 'wait_expired' : 'expired';
  const taskOpen = stmt(db, `SELECT ${TASK_OPEN} AS ok FROM path_reservations r WHERE r.id = @id`).get({ id: r.id, now }) as { ok: number } | undefined;
  return taskOpen?.ok === 0 ? 'task_ended' : 'holder_left';
}

export function liveInRoom(db: Db, roomId: string, now: number, state?: ReservationState): ReservationRow[] {
  return stmt(
    db,
    `SELECT r.* FROM path_reservations r WHERE r.room_id = @room AND (@state IS NULL OR r.state = @state) AND ${ALIVE} ORDER BY r.seq`,
  ).all({ room: roomId, now, state: state ?? null }) as ReservationRow[];
}

export function liveById(db: Db, id: string, now: number): ReservationRow | undefined {
  return stmt(db, `SELECT r.* FROM path_reservations r WHERE r.id = @id AND ${ALIVE}`).get({ id, now }) as ReservationRow | undefined;
}

export function liveOfTask(db: Db, taskId: string, now: number): ReservationRow[] {
  return stmt(db, `SELECT r.* FROM path_reservations r WHERE r.task_id = @task AND r.state = 'active' AND ${ALIVE} ORDER BY r.seq`).all({
    task: taskId,
    now,
  }) as ReservationRow[];
}

/** Rows whose time ran out or whose task ended (the sweep's work), across rooms. */
export function deadRows(db: Db, now: number): ReservationRow[] {
  return stmt(db, `SELECT r.* FROM path_reservations r WHERE NOT (${ALIVE}) ORDER BY r.seq LIMIT 1000`).all({ now }) as ReservationRow[];
}

export function rowsOfTask(db: Db, taskId: string): ReservationRow[] {
  return stmt(db, 'SELECT * FROM path_reservations WHERE task_id = ? ORDER BY seq').all(taskId) as ReservationRow[];
}

export interface NewReservation {
  id: string;
  requestId: string;
  roomId: string;
  plate: string;
  pattern: string;
  exclusive: boolean;
  reason: string | null;
  taskId: string | null;
  state: ReservationState;
  ttlMs: number;
  now: number;
  expiresAt: number;
}

export function insertReservation(db: Db, r: NewReservation): void {
  stmt(
    db,
    `INSERT INTO path_reservations (id, request_id, room_id, plate, pattern, exclusive, reason, task_id, state, ttl_ms, created_at, granted_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    r.id,
    r.requestId,
    r.roomId,
    r.plate,
    r.pattern,
    r.exclusive ? 1 : 0,
    r.reason,
    r.taskId,
    r.state,
    r.ttlMs,
    r.now,
    r.state === 'active' ? r.now : null,
    r.expiresAt,
  );
}

/** Grants a waiting request: every row of it becomes active with its TTL counted from now. */
export function grantRequest(db: Db, requestId: string, now: number): number {
  return stmt(
    db,
    "UPDATE path_reservations SET state = 'active', granted_at = ?, expires_at = ? + ttl_ms WHERE request_id = ? AND state = 'waiting'",
  ).run(now, now, requestId).changes;
}

export function setExpiry(db: Db, id: string, expiresAt: number, ttlMs: number): void {
  stmt(db, 'UPDATE path_reservations SET expires_at = ?, ttl_ms = ? WHERE id = ?').run(expiresAt, ttlMs, id);
}

/** Removes a reservation and records how it ended; false when it was already gone. */
export function endReservation(
  db: Db,
  r: ReservationRow,
  cause: ReleaseCause,
  by: { kind: 'agent' | 'human' | 'server'; id?: string; reason?: string },
  now: number,
): boolean {
  if (stmt(db, 'DELETE FROM path_reservations WHERE id = ?').run(r.id).changes !== 1) return false;
  stmt(
    db,
    `INSERT INTO reservation_releases (reservation_id, room_id, plate, pattern, task_id, cause, by_kind, by_id, reason, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.id, r.room_id, r.plate, r.pattern, r.task_id, cause, by.kind, by.id ?? null, by.reason ?? null, now);
  return true;
}

export interface ReleaseRow {
  seq: number;
  reservation_id: string;
  room_id: string;
  plate: string;
  pattern: string;
  task_id: string | null;
  cause: ReleaseCause;
  by_kind: 'agent' | 'human' | 'server';
  by_id: string | null;
  reason: string | null;
  created_at: number;
}

/** The newest release records of a room (force-releases with their reasons among them). */
export function recentReleases(db: Db, roomId: string, limit: number): ReleaseRow[] {
  return stmt(db, 'SELECT * FROM reservation_releases WHERE room_id = ? ORDER BY seq DESC LIMIT ?').all(roomId, limit) as ReleaseRow[];
}

/** Keeps the release record bounded: the last 30 days. */
export function pruneReleaseRecords(db: Db, now: number): number {
  return stmt(db, 'DELETE FROM reservation_releases WHERE created_at < ?').run(now - 30 * 24 * 3600_000).changes;
}
