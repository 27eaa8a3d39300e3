import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { immediate } from '../db/open.js';
import { AppError } from '../errors/app-error.js';
import { getWake, type WakeRow } from '../wakes/store.js';
import { presentWake } from '../wakes/present.js';
import { LEASE_STALE_MS, toRecord, depsOf, openDepsOf, getTaskRow, type TaskRow } from '../tasks/store.js';
import { getMessage, messageDto } from '../messages/service.js';
import { getRoom, humanRole, workingRoomSql } from '../rooms/store.js';
import type { z } from 'zod';
import type { needItem, needKind } from '../../../shared/schemas/needs.js';

/** Human mentions looked for per request at most (the newest unanswered first). */
export const MENTION_WINDOW = 500;

export type NeedKind = z.output<typeof needKind>;

/** One item of Needs you (shared/schemas/needs.ts `needItem`): the /v1 lists add the acts of its wake and task. */
export type NeedItem = z.output<typeof needItem>;

/**
 * The rooms whose needs are this owner's: joined (an invitation is not yet theirs,
 * rooms/invitations.ts), optionally one room. Every query below starts from this set, read by
 * the index room_humans_by_owner, so the work follows the owner's rooms and what waits in them,
 * never every room of the server.
 */
const MY_ROOMS = `my AS (SELECT room_id, role FROM room_humans WHERE owner_id = @owner AND state = 'joined' AND (@room IS NULL OR room_id = @room) AND ${workingRoomSql('room_id')})`;

/** Not dismissed by this owner (needs_dismissals, migration 0021). */
const notDismissed = (kindSql: string, refSql: string) => `NOT EXISTS (SELECT 1 FROM needs_dismissals d WHERE d.owner_id = @owner AND d.kind = ${kindSql} AND d.ref = ${refSql})`;

/**
 * Failed and held wakes that still wait: of the owner's own agents, or of any agent in a room it
 * administers. A failed wake that was retried (its retry has its own item if it fails too), and
 * a held wake dropped (it ends failed, reason `dropped`), are resolved.
 */
function openWakes(db: Db, args: QueryArgs): WakeRow[] {
  return stmt(
    db,
    `WITH ${MY_ROOMS}
     SELECT w.* FROM my JOIN wakes w ON w.room_id = my.room_id
      WHERE w.status IN ('failed', 'held')
        AND (my.role = 'admin' OR w.plate IN (SELECT plate FROM agents WHERE owner_id = @owner))
        AND NOT (w.status = 'failed' AND w.reason IS 'dropped')
        AND NOT (w.status = 'failed' AND EXISTS (SELECT 1 FROM wakes r WHERE r.plate = w.plate AND r.event_key = 'retry:' || w.id AND r.event_key NOT GLOB 'msg:*'))
        AND ${notDismissed("CASE w.status WHEN 'failed' THEN 'wake_failed' ELSE 'wake_held' END", 'w.id')}
      ORDER BY w.seq DESC LIMIT @limit`,
  ).all(args) as WakeRow[];
}

/** Running wakes of agents the owner may act on: the route's presence check picks the stalled ones. */
function runningWakes(db: Db, args: QueryArgs): WakeRow[] {
  return stmt(
    db,
    `WITH ${MY_ROOMS}
     SELECT w.* FROM wakes w JOIN my ON my.room_id = w.room_id
      WHERE w.status = 'running'
        AND (my.role = 'admin' OR w.plate IN (SELECT plate FROM agents WHERE owner_id = @owner))
        AND ${notDismissed("'agent_stalled'", 'w.id')}
      ORDER BY w.seq DESC LIMIT @limit`,
  ).all(args) as WakeRow[];
}

type TaskNeedRow = TaskRow & { need: NeedKind; failed_dep: string | null };

/**
 * Tasks that wait on a human: failed with no copy yet (retry makes one), blocked, doing with a
 * stale or gone lease, and todo tasks whose prerequisite failed (a retry points them at the copy).
 */
function openTasks(db: Db, args: QueryArgs & { stale: number }): TaskNeedRow[] {
  const kind = `CASE t.status WHEN 'failed' THEN 'task_failed' WHEN 'blocked' THEN 'task_blocked' ELSE 'lease_stale' END`;
  const direct = stmt(
    db,
    `WITH ${MY_ROOMS}
     SELECT t.*, ${kind} AS need, NULL AS failed_dep FROM my JOIN tasks t ON t.room_id = my.room_id
      WHERE t.status IN ('failed', 'blocked', 'doing') AND t.archived_at IS NULL
        AND (t.status <> 'failed' OR NOT EXISTS (SELECT 1 FROM tasks c WHERE c.retry_of = t.id))
        AND (t.status <> 'doing' OR t.lease_gone_at IS NOT NULL OR (t.lease_renewed_at IS NOT NULL AND t.lease_renewed_at < @stale))
        AND ${notDismissed(kind, 't.id')}
      ORDER BY t.updated_at DESC LIMIT @limit`,
  ).all(args) as TaskNeedRow[];
  // From each failed task of the rooms to its todo dependents (task_deps_by_prerequisite), not over every todo task.
  const waiting = stmt(
    db,
    `WITH ${MY_ROOMS}
     SELECT t.*, 'blocked_by_failed' AS need, MIN(p.id) AS failed_dep
       FROM my JOIN tasks p ON p.room_id = my.room_id AND p.status = 'failed'
       JOIN task_deps d ON d.depends_on = p.id JOIN tasks t ON t.id = d.task_id
      WHERE t.status = 'todo' AND t.archived_at IS NULL AND ${notDismissed("'blocked_by_failed'", 't.id')}
      GROUP BY t.id ORDER BY t.updated_at DESC LIMIT @limit`,
  ).all(args) as TaskNeedRow[];
  return [...direct, ...waiting];
}

interface MentionRow {
  msg_rowid: number;
  room_id: string;
}

/**
 * Messages that mention this human and wait: not its own, not answered (it has posted in that
 * room since: human_mentions.answered_at), not dismissed. One indexed read of human_mentions per
 * joined room of the owner, newest first.
 */
function openMentions(db: Db, args: QueryArgs): MentionRow[] {
  return stmt(
    db,
    `WITH ${MY_ROOMS}
     SELECT hm.msg_rowid, hm.room_id FROM my JOIN human_mentions hm ON hm.owner_id = @owner AND hm.room_id = my.room_id AND hm.answered_at IS NULL
      WHERE ${notDismissed("'mention'", "(SELECT m.id FROM messages m WHERE m.rowid = hm.msg_rowid)")}
      ORDER BY hm.created_at DESC LIMIT @limit`,
  ).all(args) as MentionRow[];
}

interface QueryArgs {
  owner: string;
  room: string | null;
  limit: number;
}

function roomRef(db: Db, names: Map<string, string>, id: string) {
  let name = names.get(id);
  if (name === undefined) names.set(id, (name = getRoom(db, id)?.name ?? id));
  return { room_id: id, name };
}

function taskItem(db: Db, roomOf: (id: string) => NeedItem['room'], t: TaskNeedRow, handles: Map<string, string>): NeedItem {
  const task = toRecord(db, t, depsOf(db, t.id), openDepsOf(db, t.id), handles);
  const kind = t.need;
  const action = kind === 'task_failed' ? 'retry' : kind === 'lease_stale' ? 'release' : kind === 'task_blocked' ? 'reassign' : 'open';
  return { kind, room: roomOf(t.room_id), action, at: task.updated_at, ref: t.id, task, ...(t.failed_dep && kind === 'blocked_by_failed' ? { failed_dep: t.failed_dep } : {}) };
}

function wakeItem(db: Db, ownerId: string, roomOf: (id: string) => NeedItem['room'], w: WakeRow, kind: 'wake_failed' | 'wake_held' | 'agent_stalled'): NeedItem {
  const wake = presentWake(db, ownerId, w);
  const action = kind === 'wake_failed' ? 'retry' : kind === 'wake_held' ? 'release' : 'stop';
  const at = kind === 'agent_stalled' ? (wake.started_at ?? wake.created_at!) : (wake.ended_at ?? wake.created_at!);
  return { kind, room: roomOf(w.room_id), action, at, ref: w.id, wake };
}

/**
 * What waits on this human across every room it has joined (docs/needs-you.md): failed and held
 * wakes of its own agents (or of any agent in a room it administers), blocked and failed tasks,
 * stale leases, tasks waiting on a failed one, mentions of it, and the running wakes of agents
 * whose presence is `stalled` (`opts.stalled`, given by the route: presence needs the live
 * sessions). Newest first; an item leaves by itself when what it points at is resolved, or when
 * the owner dismissed it. Bounded: each kind is one query of at most `limit` rows over the
 * owner's rooms, whatever the number of rooms or of records in them.
 */
export function needsYou(
  db: Db,
  ownerId: string,
  opts: { room?: string; limit: number; stalled?: (plate: string) => boolean; now?: number },
): { items: NeedItem[]; truncated: boolean; count: number } {
  const args: QueryArgs = { owner: ownerId, room: opts.room ?? null, limit: opts.limit + 1 };
  const names = new Map<string, string>();
  const roomOf = (id: string) => roomRef(db, names, id);
  const items: NeedItem[] = [];
  let truncated = false;
  const take = <R>(rows: R[]) => {
    if (rows.length > opts.limit) truncated = true;
    return rows.slice(0, opts.limit);
  };
  for (const w of take(openWakes(db, args))) items.push(wakeItem(db, ownerId, roomOf, w, w.status === 'failed' ? 'wake_failed' : 'wake_held'));
  if (opts.stalled) {
    const stalled = new Map<string, boolean>();
    const isStalled = (plate: string) => stalled.get(plate) ?? stalled.set(plate, opts.stalled!(plate)).get(plate)!;
    for (const w of take(runningWakes(db, args))) if (isStalled(w.plate)) items.push(wakeItem(db, ownerId, roomOf, w, 'agent_stalled'));
  }
  const handles = new Map<string, string>();
  for (const t of take(openTasks(db, { ...args, stale: (opts.now ?? Date.now()) - LEASE_STALE_MS }))) items.push(taskItem(db, roomOf, t, handles));
  const mentions = openMentions(db, { ...args, limit: Math.min(args.limit, MENTION_WINDOW + 1) });
  for (const m of take(mentions)) {
    const row = stmt(db, 'SELECT * FROM messages WHERE rowid = ?').get(m.msg_rowid) as Parameters<typeof messageDto>[1] | undefined;
    if (!row) continue;
    const message = messageDto(db, row);
    items.push({ kind: 'mention', room: roomOf(m.room_id), action: 'open', at: message.created_at, ref: message.message_id, message });
  }
  items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  if (items.length > opts.limit) truncated = true;
  const page = items.slice(0, opts.limit);
  return { items: page, truncated, count: page.length };
}

/** The record a dismissal names, found by its id, when it is in a room the owner has joined. */
function recordOf(db: Db, ownerId: string, kind: NeedKind, ref: string): { room: string; item: Omit<NeedItem, 'room'> } | undefined {
  const joined = (room: string) => humanRole(db, room, ownerId) !== undefined && isJoined(db, room, ownerId);
  if (kind === 'wake_failed' || kind === 'wake_held' || kind === 'agent_stalled') {
    const w = getWake(db, ref);
    if (!w || !joined(w.room_id)) return undefined;
    const wake = presentWake(db, ownerId, w);
    return { room: w.room_id, item: { kind, action: kind === 'wake_failed' ? 'retry' : kind === 'wake_held' ? 'release' : 'stop', at: wake.ended_at ?? wake.created_at!, ref, wake } };
  }
  if (kind === 'mention') {
    const m = getMessage(db, ref);
    if (!m || !joined(m.room)) return undefined;
    return { room: m.room, item: { kind, action: 'open', at: m.created_at, ref, message: m } };
  }
  const t = getTaskRow(db, ref);
  if (!t || !joined(t.room_id)) return undefined;
  const task = toRecord(db, t, depsOf(db, t.id), openDepsOf(db, t.id));
  const action = kind === 'task_failed' ? 'retry' : kind === 'lease_stale' ? 'release' : kind === 'task_blocked' ? 'reassign' : 'open';
  return { room: t.room_id, item: { kind, action, at: task.updated_at, ref, task } };
}

function isJoined(db: Db, room: string, ownerId: string): boolean {
  return stmt(db, "SELECT 1 FROM room_humans WHERE room_id = ? AND owner_id = ? AND state = 'joined'").get(room, ownerId) !== undefined;
}

/** An owner keeps at most this many dismissals; dismissing more forgets the oldest. */
export const MAX_DISMISSALS = 5_000;

/** The owner dismisses an item: stored per owner until restored. The record must be one it can see. */
export function dismissNeed(db: Db, ownerId: string, kind: NeedKind, ref: string): { kind: NeedKind; ref: string; dismissed_at: string } {
  const found = recordOf(db, ownerId, kind, ref);
  if (!found) throw new AppError('NOT_FOUND', 'nothing of that kind and id waits on you', { reason: 'no_such_need' });
  const now = Date.now();
  immediate(db, () => {
    stmt(db, 'INSERT INTO needs_dismissals (owner_id, kind, ref, room_id, dismissed_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET dismissed_at = excluded.dismissed_at').run(
      ownerId,
      kind,
      ref,
      found.room,
      now,
    );
    stmt(
      db,
      `DELETE FROM needs_dismissals WHERE owner_id = ? AND dismissed_at < (
         SELECT dismissed_at FROM needs_dismissals WHERE owner_id = ? ORDER BY dismissed_at DESC LIMIT 1 OFFSET ?)`,
    ).run(ownerId, ownerId, MAX_DISMISSALS - 1);
  });
  return { kind, ref, dismissed_at: new Date(now).toISOString() };
}

/** Undo: the item is back in Needs you if it still waits. */
export function restoreNeed(db: Db, ownerId: string, kind: NeedKind, ref: string): { restored: boolean } {
  return { restored: stmt(db, 'DELETE FROM needs_dismissals WHERE owner_id = ? AND kind = ? AND ref = ?').run(ownerId, kind, ref).changes === 1 };
}

/** The Dismissed list: the owner's latest dismissals (at most `limit`) with the records they name, to restore from. */
export function dismissedNeeds(db: Db, ownerId: string, limit: number): { items: NeedItem[]; truncated: boolean } {
  const rows = stmt(db, 'SELECT kind, ref, dismissed_at FROM needs_dismissals WHERE owner_id = ? ORDER BY dismissed_at DESC LIMIT ?').all(ownerId, limit + 1) as Array<{
    kind: NeedKind;
    ref: string;
    dismissed_at: number;
  }>;
  const names = new Map<string, string>();
  const items: NeedItem[] = [];
  for (const r of rows.slice(0, limit)) {
    const found = recordOf(db, ownerId, r.kind, r.ref);
    if (found) items.push({ ...found.item, room: roomRef(db, names, found.room), dismissed_at: new Date(r.dismissed_at).toISOString() });
  }
  return { items, truncated: rows.length > limit };
}


/**
 * The owner read the room up to `seq` (its window marks a room read as its chat is on screen):
 * the mentions of it there, up to that message, are acknowledged and leave Needs you, as an
 * answer would take them. One indexed update.
 */
export function acknowledgeMentions(db: Db, ownerId: string, roomId: string, seq: number): { acknowledged: number } {
  const upTo = stmt(db, 'SELECT rowid AS rowid FROM messages WHERE room_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1').get(roomId, seq) as { rowid: number } | undefined;
  if (!upTo) return { acknowledged: 0 };
  const acknowledged = immediate(
    db,
    () =>
      stmt(db, 'UPDATE human_mentions SET answered_at = ? WHERE owner_id = ? AND room_id = ? AND answered_at IS NULL AND msg_rowid <= ?').run(Date.now(), ownerId, roomId, upTo.rowid)
        .changes,
  );
  return { acknowledged };
}
