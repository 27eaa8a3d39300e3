import type { Core } from '../core.js';
import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { rowKey, seqId } from '../util/ids.js';

/** check_mentions pages like read_room. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 200;

export type TrustLevel = 'same_owner' | 'trusted' | 'untrusted' | 'human';

/**
 * Unacknowledged mentions per plate, as last counted. Every tool result carries the count, and
 * counting is linear in the backlog, so it is kept here and forgotten whenever this module
 * (the only writer of the inbox) changes that plate's items.
 */
const pendingCounts = new WeakMap<Db, Map<string, number>>();

function forgetPending(db: Db, plate: string): void {
  pendingCounts.get(db)?.delete(plate);
}

export function pendingMentions(db: Db, plate: string): number {
  let counts = pendingCounts.get(db);
  if (!counts) pendingCounts.set(db, (counts = new Map()));
  const known = counts.get(plate);
  if (known !== undefined) return known;
  const n = (stmt(db, 'SELECT COUNT(*) AS n FROM mentions WHERE plate = ? AND acked_at IS NULL').get(plate) as { n: number }).n;
  // Inside a transaction the count may yet be rolled back: use it, do not keep it.
  if (!db.inTransaction) counts.set(plate, n);
  return n;
}

/**
 * Keeps a count a writer knows exactly: `addInboxItem`'s `pending_after`, once the transaction
 * that added the item has committed (until then the item may yet be rolled back).
 */
export function rememberPending(db: Db, plate: string, n: number): void {
  pendingCounts.get(db)?.set(plate, n);
}

/** What an inbox item is made of. */
export interface InboxItemInput {
  plate: string;
  roomId: string;
  messageId?: string;
  taskId?: string;
  kind: 'mention' | 'task' | 'handoff';
  trustLevel: TrustLevel;
}

/** An inbox item's row, its id minted from its seq, ready to be written (`writeInboxItem`). */
export interface InboxItemRow extends InboxItemInput {
  seq: number;
  id: string;
  createdAt: number;
}

/** The seq the next inbox item takes (nextInboxSeq) as SQL, for a caller that reads it with others in one statement. */
export const nextInboxSeqSql = 'SELECT COALESCE(MAX(seq), 0) + 1 FROM mentions';

/**
 * The seq the next inbox item takes: the largest plus one, as SQLite would give it (no item is
 * ever deleted). Read in the write transaction that writes the item, or plans it for the writes
 * queued behind its answer (db/open.ts `writeBehind`), which run before any later write.
 */
export function nextInboxSeq(db: Db): number {
  return (stmt(db, `SELECT (${nextInboxSeqSql}) AS seq`).get() as { seq: number }).seq;
}

/** The row of an inbox item taking `seq`: its id carries the seq (migration 0015). */
export function inboxItemRow(item: InboxItemInput, seq: number, now: number): InboxItemRow {
  return { ...item, seq, id: mintInboxItemId(seq, now), createdAt: now };
}

/** The id of an inbox item taking `seq`, minted at `now`. */
export function mintInboxItemId(seq: number, now: number): string {
  return seqId('mnt', seq, now);
}

/** The id of the inbox item holding `seq`, if one does. */
export function inboxItemIdAt(db: Db, seq: number): string | undefined {
  return (stmt(db, 'SELECT id FROM mentions WHERE seq = ?').get(seq) as { id: string } | undefined)?.id;
}

/** Writes a planned inbox item (inside the caller's transaction). */
export function writeInboxItem(db: Db, r: InboxItemRow): void {
  forgetPending(db, r.plate);
  stmt(
    db,
    `INSERT INTO mentions (seq, id, plate, room_id, message_id, task_id, kind, trust_level, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(r.seq, r.id, r.plate, r.roomId, r.messageId ?? null, r.taskId ?? null, r.kind, r.trustLevel, r.createdAt);
}

/** `pending_after`: the plate's count with this item, when the count before it was known (see `rememberPending`). */
export function addInboxItem(db: Db, item: InboxItemInput): { mention_id: string; seq: number; pending_after?: number } {
  // The seq is read, then written: one write transaction, so no other writer takes it in between.
  if (!db.inTransaction) return immediate(db, () => addInboxItem(db, item));
  return addPlannedInboxItem(db, inboxItemRow(item, nextInboxSeq(db), Date.now()));
}

/** Writes an inbox item planned by the caller (inside its transaction), and tells `pending_after` as addInboxItem does. */
export function addPlannedInboxItem(db: Db, row: InboxItemRow): { mention_id: string; seq: number; pending_after?: number } {
  const before = pendingCounts.get(db)?.get(row.plate);
  writeInboxItem(db, row);
  return { mention_id: row.id, seq: row.seq, pending_after: before === undefined ? undefined : before + 1 };
}

/** The (seq, id) pair a lookup by inbox item id binds (`WHERE seq = ? AND id = ?`), as wakeKey does for wakes. */
function mentionKey(db: Db, id: string): [number, string] {
  const legacy = stmt(db, 'SELECT seq FROM mention_legacy_ids WHERE id = ?').get(id) as { seq: number } | undefined;
  return rowKey('mnt', id, legacy?.seq);
}

/** Acknowledges the caller's own inbox items; others' ids are ignored. Returns how many changed. */
export function ackByIds(db: Db, plate: string, ids: readonly string[]): number {
  let n = 0;
  const now = Date.now();
  forgetPending(db, plate);
  for (const id of ids) {
    n += stmt(db, 'UPDATE mentions SET acked_at = ? WHERE seq = ? AND id = ? AND plate = ? AND acked_at IS NULL').run(now, ...mentionKey(db, id), plate).changes;
  }
  return n;
}

export function ackUpToSeq(db: Db, plate: string, seq: number): number {
  forgetPending(db, plate);
  return stmt(db, 'UPDATE mentions SET acked_at = ? WHERE plate = ? AND seq <= ? AND acked_at IS NULL').run(Date.now(), plate, seq)
    .changes;
}

/** Acknowledges the caller's open inbox items of one task (a completed task clears its own wake). */
export function ackTaskItems(db: Db, plate: string, taskId: string): number {
  forgetPending(db, plate);
  return stmt(db, 'UPDATE mentions SET acked_at = ? WHERE plate = ? AND task_id = ? AND acked_at IS NULL').run(Date.now(), plate, taskId)
    .changes;
}

export interface InboxRow {
  seq: number;
  id: string;
  room_id: string;
  message_id: string | null;
  task_id: string | null;
  kind: string;
  trust_level: string;
  created_at: number;
  body: string | null;
  sender_kind: string | null;
  sender_plate: string | null;
  sender_owner_id: string | null;
  msg_seq: number | null;
}

type ItemRow = Omit<InboxRow, 'body' | 'sender_kind' | 'sender_plate' | 'sender_owner_id' | 'msg_seq'>;

/** The unacknowledged items after `sinceSeq`, oldest first, each with the message it points at (core.ports.inboxMessages). */
export function listInbox(core: Core, plate: string, rooms: string[] | undefined, sinceSeq: number, limit: number): InboxRow[] {
  const { db } = core;
  const base = `SELECT seq, id, room_id, message_id, task_id, kind, trust_level, created_at FROM mentions
    WHERE plate = ? AND acked_at IS NULL AND seq > ?`;
  const items = (
    rooms
      ? stmt(db, `${base} AND room_id IN (SELECT value FROM json_each(?)) ORDER BY seq LIMIT ?`).all(plate, sinceSeq, JSON.stringify(rooms), limit)
      : stmt(db, `${base} ORDER BY seq LIMIT ?`).all(plate, sinceSeq, limit)
  ) as ItemRow[];
  const ids = items.flatMap((i) => (i.message_id ? [i.message_id] : []));
  const messages = new Map(ids.length ? core.ports.inboxMessages(db, ids).map((m) => [m.id, m]) : []);
  return items.map((i) => {
    const m = i.message_id ? messages.get(i.message_id) : undefined;
    return { ...i, body: m?.body ?? null, sender_kind: m?.sender_kind ?? null, sender_plate: m?.sender_plate ?? null, sender_owner_id: m?.sender_owner_id ?? null, msg_seq: m?.seq ?? null };
  });
}

/** The room of one of the agent's own inbox items. */
export function roomOfItem(db: Db, plate: string, id: string): string | undefined {
  return (stmt(db, 'SELECT room_id FROM mentions WHERE seq = ? AND id = ? AND plate = ?').get(...mentionKey(db, id), plate) as { room_id: string } | undefined)?.room_id;
}

/** The rooms of the agent's open items up to `seq`. */
export function roomsOfOpenItemsUpTo(db: Db, plate: string, seq: number): string[] {
  return (
    stmt(db, 'SELECT DISTINCT room_id FROM mentions WHERE plate = ? AND seq <= ? AND acked_at IS NULL').all(plate, seq) as Array<{ room_id: string }>
  ).map((r) => r.room_id);
}
