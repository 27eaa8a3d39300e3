import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { addPlannedInboxItem, inboxItemIdAt, inboxItemRow, mintInboxItemId, nextInboxSeq, nextInboxSeqSql, writeInboxItem, type TrustLevel } from '../inbox/store.js';
import { BODY_OF_MESSAGE, chainDepthCausedBySql, mintWakeId, nextWakeSeq, nextWakeSeqSql, planWake, wakeIdAt, writeWake, type WakeInput } from '../wakes/store.js';

/**
 * Deliveries written behind the answer (docs/performance.md, "Deliveries written behind the
 * answer"). When every agent a message mentions only gets an inbox item and, at most, a wake
 * parked for pull (nothing can take it now), those rows start nothing: the message is committed
 * and answered first, and they are written right after, in the next write transaction of the same
 * event-loop turn (db/open.ts `writeBehind`). Their seqs and ids are planned in the message's own
 * transaction, reported in its answer, and kept in the message's `parked` column (migration 0017),
 * so that a process that stops in between writes the very same rows when it starts again.
 */

/** One mentioned agent's parked delivery, as the `parked` column keeps it. */
export type ParkedDelivery = [plate: string, trust: TrustLevel, itemSeq: number, itemId: string, wake: [seq: number, id: string, depth: number] | null];

/** What a message's inbox items and wakes take from it. */
export interface ParkedMessage {
  id: string;
  roomId: string;
  body: string;
  senderOwnerId: string;
  /** The agent that sent it (its running wake sets the chain depth), absent for a human. */
  senderPlate?: string;
  createdAt: number;
}

/**
 * What one mentioned agent gets: an inbox item, and a wake when it may be woken, parked for pull
 * when nothing can take it now (`pull`; always so for rows written behind the answer).
 */
export interface DeliveryTarget {
  plate: string;
  trust: TrustLevel;
  wake: boolean;
  pull: boolean;
}

/** Where a message's rows start: the next inbox and wake seqs, and the depth its wakes chain on at. */
export interface DeliveryStart {
  item_seq: number;
  wake_seq: number;
  depth: number;
}

/**
 * What planDeliveries starts from, as columns the message's own statement returns (`postToRoom`'s
 * `also`, with `@cause` the sending agent's plate or NULL): three reads in the statement that
 * takes the message's seq, not three statements of their own (and not three per mentioned agent).
 */
export const DELIVERY_START_COLUMNS = `(${nextInboxSeqSql}) AS item_seq, (${nextWakeSeqSql}) AS wake_seq, (${chainDepthCausedBySql('@cause')}) AS depth`;

/**
 * Plans a message's rows (inside its write transaction, from `start` read there), written in it
 * (writeDeliveries) or behind its answer (writeParked): seqs follow the largest written, in order,
 * and every wake of one message chains on from the same write.
 */
export function planDeliveries(m: ParkedMessage, targets: readonly DeliveryTarget[], start: DeliveryStart): ParkedDelivery[] {
  let itemSeq = start.item_seq;
  let wakeSeq = start.wake_seq;
  const chainDepth = m.senderPlate ? start.depth : 0;
  // The ids as inboxItemRow and planWake mint them (writeDeliveries builds the rows from these).
  return targets.map((t) => {
    const item = itemSeq++;
    const wake = t.wake ? wakeSeq++ : 0;
    return [t.plate, t.trust, item, mintInboxItemId(item, m.createdAt), t.wake ? [wake, mintWakeId(wake, m.createdAt), chainDepth] : null];
  });
}

/** The inbox item a message's mention gives one agent. */
function mentionItem(m: ParkedMessage, plate: string, trustLevel: TrustLevel) {
  return { plate, roomId: m.roomId, messageId: m.id, kind: 'mention' as const, trustLevel };
}

/**
 * The wake a message's mention queues for one agent, one per message and agent. Its model input is
 * the raw body, kept once, in the message: the wake's `content` is '' and the dispatcher reads the
 * body when the wake starts (wakes/store.ts `BODY_OF_MESSAGE`). A send to 50 agents writes one
 * 64 KiB body, not 51.
 */
export function mentionWake(m: ParkedMessage, plate: string, pull: boolean): WakeInput {
  return {
    plate,
    roomId: m.roomId,
    trigger: 'mention',
    messageId: m.id,
    content: BODY_OF_MESSAGE,
    eventKey: `msg:${m.id}`,
    actorOwnerId: m.senderOwnerId,
    causePlate: m.senderPlate,
    pull,
  };
}

/**
 * Writes a message's planned rows (inside the caller's transaction), each wake parked for pull
 * unless `targets` (the planned targets, in order) says something can take it. Per delivery, in
 * the same order: the agent's pending count after its item, when known (inbox/store.ts
 * `rememberPending`), and the wake written, if one was.
 */
export function writeDeliveries(
  db: Db,
  m: ParkedMessage,
  deliveries: readonly ParkedDelivery[],
  targets?: readonly DeliveryTarget[],
): Array<{ pendingAfter?: number; wakeId?: string }> {
  return deliveries.map(([plate, trust, itemSeq, itemId, wake], i) => {
    const item = addPlannedInboxItem(db, { ...mentionItem(m, plate, trust), seq: itemSeq, id: itemId, createdAt: m.createdAt });
    const written = wake ? writeWake(db, { ...mentionWake(m, plate, targets?.[i]?.pull ?? true), seq: wake[0], id: wake[1], chainDepth: wake[2], createdAt: m.createdAt }) : false;
    return { pendingAfter: item.pending_after, wakeId: wake && written ? wake[1] : undefined };
  });
}

/** Writes a message's parked rows, behind its answer (or, after a stop, at start). */
export function writeParked(db: Db, m: ParkedMessage, deliveries: readonly ParkedDelivery[]): void {
  writeDeliveries(db, m, deliveries);
}

/** What a row planned as (seq, id) is now: written, missing, or its seq taken by another row (then it gets the next seq). */
function stateOf(db: Db, table: 'mentions' | 'wakes', seq: number, id: string): 'written' | 'missing' | 'taken' {
  const at = table === 'mentions' ? inboxItemIdAt(db, seq) : wakeIdAt(db, seq);
  return at === undefined ? 'missing' : at === id ? 'written' : 'taken';
}

/**
 * Writes the rows of a message's parked deliveries that are not written: each as planned or, its
 * seq taken since by another row, under the next seq (then with a new id). Returns the deliveries
 * as they now stand.
 */
function writeMissing(db: Db, m: ParkedMessage, deliveries: readonly ParkedDelivery[]): ParkedDelivery[] {
  return deliveries.map(([plate, trust, itemSeq, itemId, wake]): ParkedDelivery => {
    let item: [number, string] = [itemSeq, itemId];
    const itemState = stateOf(db, 'mentions', itemSeq, itemId);
    if (itemState !== 'written') {
      const input = mentionItem(m, plate, trust);
      const row = itemState === 'missing' ? { ...input, seq: itemSeq, id: itemId, createdAt: m.createdAt } : inboxItemRow(input, nextInboxSeq(db), m.createdAt);
      writeInboxItem(db, row);
      item = [row.seq, row.id];
    }
    let w = wake;
    const wakeState = wake ? stateOf(db, 'wakes', wake[0], wake[1]) : 'written';
    if (wake && wakeState !== 'written') {
      const row = planWake(db, { ...mentionWake(m, plate, true), chainDepth: wake[2] }, wakeState === 'missing' ? wake[0] : nextWakeSeq(db), m.createdAt);
      const written = wakeState === 'missing' ? { ...row, id: wake[1] } : row;
      writeWake(db, written);
      w = [written.seq, written.id, wake[2]];
    }
    return [plate, trust, item[0], item[1], w];
  });
}

/** How many of the newest messages a start looks at: parked rows are written within the turn that answered them. */
export const PARKED_LOOKBACK = 1000;

interface MessageRow {
  id: string;
  room_id: string;
  body: string;
  sender_owner_id: string;
  sender_plate: string | null;
  created_at: number;
  parked: string;
}

/**
 * At start, before any request: writes the parked rows a stopped process planned and answered but
 * did not write (it stopped within that turn), among the newest PARKED_LOOKBACK messages, in one
 * transaction. A message's rows are written together (one savepoint, or this one transaction), so
 * its first inbox item tells whether they were: one lookup per message. Returns how many messages
 * needed it.
 */
export function writeParkedLeftBehind(db: Db): number {
  const planned = stmt(
    db,
    `SELECT rowid AS row, parked ->> '$[0][2]' AS seq, parked ->> '$[0][3]' AS id FROM messages
      WHERE rowid > (SELECT COALESCE(MAX(rowid), 0) FROM messages) - ? AND parked IS NOT NULL ORDER BY rowid`,
  ).all(PARKED_LOOKBACK) as Array<{ row: number; seq: number; id: string }>;
  const left = planned.filter((p) => inboxItemIdAt(db, p.seq) !== p.id);
  if (!left.length) return 0;
  immediate(db, () => {
    for (const p of left) {
      const r = stmt(db, 'SELECT id, room_id, body, sender_owner_id, sender_plate, created_at, parked FROM messages WHERE rowid = ?').get(p.row) as MessageRow;
      const deliveries = JSON.parse(r.parked) as ParkedDelivery[];
      const m: ParkedMessage = {
        id: r.id,
        roomId: r.room_id,
        body: r.body,
        senderOwnerId: r.sender_owner_id,
        senderPlate: r.sender_plate ?? undefined,
        createdAt: r.created_at,
      };
      const now = writeMissing(db, m, deliveries);
      // Rows written under other seqs than planned: the column says where they are, so no later start writes them again.
      if (JSON.stringify(now) !== r.parked) stmt(db, 'UPDATE messages SET parked = ? WHERE rowid = ?').run(JSON.stringify(now), p.row);
    }
  });
  return left.length;
}
