import type { Core, InboxMessage } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate, writeBehind, writeBehindOpen, writeBehindPays } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { rowKey, seqId } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { withIdempotency } from '../idempotency/store.js';
import { resolveTarget, type ResolvedTarget } from '../addressing/handles.js';
import { ackByIds, rememberPending, type TrustLevel } from '../inbox/store.js';
import { dispatchableQueued, handleWakesOnPost, mayWake } from '../wakes/store.js';
import { mentionWakes, nothingCanTake, type MentionWake, type QueuedWake } from '../wakes/outcome.js';
import { channelInstanceOf } from '../wakes/channel.js';
import { postToRoom, trustMode } from '../rooms/store.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { ownerHandle } from '../owners/store.js';
import { messageWritten } from '../search/indexer.js';
import { HISTORY_PAGE_MAX } from '../../../shared/contracts/messages.js';
import type { z } from 'zod';
import type { messageRecord } from '../../../shared/schemas/messages.js';
import { DELIVERY_START_COLUMNS, planDeliveries, writeDeliveries, writeParked, type DeliveryStart, type ParkedMessage } from './parked.js';

export const MESSAGE_BODY_LIMIT = 64 * 1024;
export const PAGE_DEFAULT = 50;
/** The history's page bound, stated once with the route's query (shared/contracts/messages.ts). */
export const PAGE_MAX = HISTORY_PAGE_MAX;

/** The rowid the next message takes, as a column of the statement that takes its seq (postToRoom). */
const MESSAGE_ROW_COLUMN = '(SELECT COALESCE(MAX(rowid), 0) + 1 FROM messages) AS row';

/** `sessionId`: the MCP session (instance) an agent posts from, whose pushed wakes its post handles. */
export type Sender = { kind: 'agent'; plate: string; ownerId: string; sessionId?: string } | { kind: 'human'; ownerId: string };

/** A message as read_room and send_message return it (shared/schemas/messages.ts `messageRecord`). */
export type MessageRecord = z.output<typeof messageRecord>;

interface MessageRow {
  id: string;
  room_id: string;
  seq: number;
  sender_kind: 'agent' | 'human';
  sender_plate: string | null;
  sender_owner_id: string;
  body: string;
  mentions: string;
  parent_id: string | null;
  created_at: number;
}

function lookupSender(db: Db, kind: 'agent' | 'human', plate: string | null, ownerId: string): MessageRecord['sender'] {
  if (kind === 'agent' && plate) {
    const a = getAgentByPlate(db, plate);
    if (a) return { kind: 'agent', plate: a.plate, owner_id: a.owner_id, handle: agentHandle(a), name: a.name };
  }
  const o = ownerHandle(db, ownerId)!;
  return { kind: 'human', owner_id: ownerId, handle: `@${o.slug}`, name: o.name };
}

/** Sender lookups memoised for one page of history (a page usually has few distinct senders). */
type SenderCache = Map<string, MessageRecord['sender']>;

function senderOf(db: Db, r: MessageRow, cache?: SenderCache): MessageRecord['sender'] {
  const key = `${r.sender_kind}:${r.sender_plate ?? ''}:${r.sender_owner_id}`;
  let s = cache?.get(key);
  if (!s) {
    s = lookupSender(db, r.sender_kind, r.sender_plate, r.sender_owner_id);
    cache?.set(key, s);
  }
  return s;
}

export function messageDto(db: Db, r: MessageRow, cache?: SenderCache): MessageRecord {
  return {
    message_id: r.id,
    seq: r.seq,
    room: r.room_id,
    sender: senderOf(db, r, cache),
    body: r.body,
    mentions: JSON.parse(r.mentions) as MessageRecord['mentions'],
    parent_id: r.parent_id,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export interface SendInput {
  roomId: string;
  body: string;
  mentionTargets?: string[];
  parentId?: string;
  idempotencyKey?: string;
  ackMentionIds?: string[];
}

/**
 * What the inbox says of the sender: `same_owner` only when it is the recipient's own owner;
 * another owner is `trusted` or `untrusted` by the recipient owner's Trust, whatever the
 * room's mix of agents (docs/security.md, item 2).
 */
function trustLevelFor(db: Db, roomId: string, recipientOwner: string, actorOwner: string): TrustLevel {
  if (recipientOwner === actorOwner) return 'same_owner';
  return trustMode(db, roomId, recipientOwner) === 'trust_room' ? 'trusted' : 'untrusted';
}

/**
 * Posts a message: the sender is the authenticated agent or owner, never an argument.
 * Mentions are delivered from the structured targets only (never a scan of the body):
 * each mentioned agent gets an inbox item, and a wake when it may be woken.
 */
/**
 * Posts a message and says what became of each agent it mentions (`wakes`, docs/wakes.md
 * "What a mention says"): a wake's status and target, or `inbox` with the reason.
 */
export function sendMessage(core: Core, sender: Sender, input: SendInput): MessageRecord & { replayed?: boolean; wakes: MentionWake[] } {
  const wakeIds = new Map<string, QueuedWake | undefined>();
  const by = { plate: sender.kind === 'agent' ? sender.plate : undefined, ownerId: sender.ownerId };
  let wakes: MentionWake[] = [];
  // A fresh message names the wakes it just queued (looked up by id); a replay finds them by message.
  // Read in the message's own transaction: what was committed, and no second read of the store.
  const result = postMessage(core, sender, input, wakeIds, (r) => {
    wakes = mentionWakes(core, r, by, r.replayed ? undefined : wakeIds);
  });
  return { ...result, wakes };
}

/** Posts the message; `wakeIds` receives, per mentioned agent, the wake it queued (undefined: none). */
function postMessage(
  core: Core,
  sender: Sender,
  input: SendInput,
  wakeIds?: Map<string, QueuedWake | undefined>,
  /** Runs in the message's transaction, after it was written (or replayed), before the commit. */
  inTransaction?: (r: MessageRecord & { replayed?: boolean }) => void,
): MessageRecord & { replayed?: boolean } {
  const { db } = core;
  if (Buffer.byteLength(input.body, 'utf8') > MESSAGE_BODY_LIMIT) {
    throw new AppError('PAYLOAD_TOO_LARGE', `message body over ${MESSAGE_BODY_LIMIT} bytes; share long content as a file (write_file)`);
  }
  if (input.body.trim().length === 0) throw invalid('body must not be empty');
  const targets = [...new Set(input.mentionTargets ?? [])];
  if (targets.length > 50) throw invalid('at most 50 mention targets');
  const scopeKey = `send_message:${input.roomId}:${sender.kind === 'agent' ? sender.plate : sender.ownerId}`;
  const idemArgs = { body: input.body, mentions: targets, parent_id: input.parentId ?? null };

  let acted = false;
  let unblocked = false;
  // Each mentioned agent's pending count, kept once the commit made it true (inbox/store.ts).
  const pendingAfter = new Map<string, number>();
  const result = immediate(db, () => {
    const written = withIdempotency(db, scopeKey, input.idempotencyKey, idemArgs, () => {
      const resolved: ResolvedTarget[] = [];
      const seen = new Set<string>();
      for (const t of targets) {
        const r = resolveTarget(db, input.roomId, t);
        const k = r.kind === 'agent' ? r.plate : `h:${r.owner_id}`;
        if (!seen.has(k)) {
          seen.add(k);
          resolved.push(r);
        }
      }
      if (input.parentId) {
        const p = stmt(db, 'SELECT room_id FROM messages WHERE rowid = ? AND id = ?').get(...messageKey(db, input.parentId)) as { room_id: string } | undefined;
        if (!p || p.room_id !== input.roomId) throw invalid('parent_id is not a message of this room', 'unknown_parent');
      }
      // What each mentioned agent gets (docs/wakes.md): an inbox item, and a wake when it may be woken.
      const agents = resolved
        .filter((r): r is Extract<ResolvedTarget, { kind: 'agent' }> => r.kind === 'agent' && !(sender.kind === 'agent' && r.plate === sender.plate))
        .map((r) => {
          const wake = mayWake(db, input.roomId, r.plate, sender.ownerId);
          return { plate: r.plate, trust: trustLevelFor(db, input.roomId, r.owner_id, sender.ownerId), wake, pull: wake && nothingCanTake(core, r.plate) };
        });
      // Rows that start nothing (inbox items, wakes parked for pull) may follow an answer that leaves
      // over the network from this turn (parked.ts; db/open.ts answerLeavesThisTurn).
      const parking = writeBehindOpen(db) && agents.length > 0 && agents.every((t) => !t.wake || t.pull) && writeBehindPays(db);
      // One statement takes the room's seq and reads the message's rowid and, when it mentions agents,
      // where their rows start: the id carries the row (migration 0016), the largest rowid plus one, as SQLite would give it.
      const place = postToRoom<{ row: number } & Partial<DeliveryStart>>(db, input.roomId, {
        columns: agents.length ? `${MESSAGE_ROW_COLUMN}, ${DELIVERY_START_COLUMNS}` : MESSAGE_ROW_COLUMN,
        params: agents.length ? { cause: sender.kind === 'agent' ? sender.plate : null } : {},
      });
      if (place === undefined) throw new AppError('NOT_FOUND', 'room not found');
      const { seq, row } = place;
      const now = Date.now();
      const id = seqId('msg', row, now);
      const mentions = resolved.map((r) =>
        r.kind === 'agent'
          ? { kind: 'agent' as const, handle: r.handle, plate: r.plate, owner_id: r.owner_id }
          : { kind: 'human' as const, handle: r.handle, owner_id: r.owner_id },
      );
      const message: ParkedMessage = { id, roomId: input.roomId, body: input.body, senderOwnerId: sender.ownerId, senderPlate: sender.kind === 'agent' ? sender.plate : undefined, createdAt: now };
      const planned = agents.length ? planDeliveries(message, agents, place as DeliveryStart) : [];
      const parked = parking ? planned : undefined;
      const inserted = stmt(
        db,
        `INSERT INTO messages (rowid, id, room_id, seq, sender_kind, sender_plate, sender_owner_id, body, mentions, parent_id, created_at, parked)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        row,
        id,
        input.roomId,
        seq,
        sender.kind,
        sender.kind === 'agent' ? sender.plate : null,
        sender.ownerId,
        input.body,
        JSON.stringify(mentions),
        input.parentId ?? null,
        now,
        parked ? JSON.stringify(parked) : null,
      );
      // Indexed for search now or with the next batch (search/indexer.ts).
      messageWritten(db, Number(inserted.lastInsertRowid), Buffer.byteLength(input.body, 'utf8'));
      if (parked) {
        for (const [plate, , , , wake] of parked) wakeIds?.set(plate, wake ? { id: wake[1], pull: true } : undefined);
        writeBehind(
          db,
          () => writeParked(db, message, parked),
          (err) => core.config.log(`agent-rooms: the inbox items of message ${id} were not written (${(err as Error)?.message}); the server writes them when it starts again`),
        );
      } else if (planned.length) {
        const written = writeDeliveries(db, message, planned, agents);
        agents.forEach((t, i) => {
          const w = written[i]!;
          if (w.pendingAfter !== undefined) pendingAfter.set(t.plate, w.pendingAfter);
          wakeIds?.set(t.plate, w.wakeId === undefined ? undefined : { id: w.wakeId, pull: t.pull });
        });
      }
      if (sender.kind === 'agent' && input.ackMentionIds?.length) ackByIds(db, sender.plate, input.ackMentionIds);
      if (sender.kind === 'agent') {
        // Posting is acting in the room (docs/wakes.md): the wakes waiting on that act (pushed to
        // this session, or parked for pull) are handled in this commit, not by a second one when
        // the dispatcher hears of the act, as agentActed does for every other tool. The session
        // is then free for its next push, and a wake queued behind the handled ones may start.
        const handled = handleWakesOnPost(db, channelInstanceOf(core, sender.sessionId), sender.plate, input.roomId);
        acted = handled.channel + handled.pull > 0;
        unblocked = handled.channel > 0 || (handled.pull > 0 && dispatchableQueued(db, sender.plate, input.roomId));
      }
      // The record from the values in hand: what a later read_room returns for this row.
      const record: MessageRecord = {
        message_id: id,
        seq,
        room: input.roomId,
        sender: lookupSender(db, sender.kind, sender.kind === 'agent' ? sender.plate : null, sender.ownerId),
        body: input.body,
        mentions,
        parent_id: input.parentId ?? null,
        created_at: new Date(now).toISOString(),
      };
      return record;
    });
    inTransaction?.(written);
    return written;
  });
  if (!db.inTransaction) for (const [plate, n] of pendingAfter) rememberPending(db, plate, n);
  if (!result.replayed) {
    // Only a wake something can take now (a runner, a live channel session) needs a dispatch pass.
    const nothingToStart = !unblocked && wakeIds !== undefined && ![...wakeIds.values()].some((w) => w && !w.pull);
    const quiet = nothingToStart ? { dispatch: false as const } : {};
    core.bus.emit({ type: 'message.created', room: input.roomId, data: result, ...quiet });
    if (acted || result.mentions.some((m) => m.kind === 'agent')) core.bus.emit({ type: 'wakes.changed', room: input.roomId, ...quiet });
  }
  return result;
}

export function readHistory(db: Db, roomId: string, limit = PAGE_DEFAULT, beforeSeq?: number) {
  const n = Math.min(Math.max(1, limit), PAGE_MAX);
  const rows = (
    beforeSeq === undefined
      ? stmt(db, 'SELECT * FROM messages WHERE room_id = ? ORDER BY seq DESC LIMIT ?').all(roomId, n + 1)
      : stmt(db, 'SELECT * FROM messages WHERE room_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?').all(roomId, beforeSeq, n + 1)
  ) as MessageRow[];
  const more = rows.length > n;
  const page = rows.slice(0, n).reverse();
  const senders: SenderCache = new Map();
  return {
    messages: page.map((r) => messageDto(db, r, senders)),
    has_more: more,
    next_before_seq: more && page.length ? page[0]!.seq : null,
  };
}

/**
 * The (rowid, id) pair a lookup by message id binds (`WHERE rowid = ? AND id = ?`): a message's id
 * carries its rowid (`seqId`, migration 0016), except ids minted before, which
 * `message_legacy_ids` maps. An id that names no message gives a pair that matches no row.
 */
export function messageKey(db: Db, id: string): [number, string] {
  const legacy = stmt(db, 'SELECT row FROM message_legacy_ids WHERE id = ?').get(id) as { row: number } | undefined;
  return rowKey('msg', id, legacy?.row);
}

/** Messages by id, as inbox items show them (the inbox asks through core.ports.inboxMessages). */
export function messagesForInbox(db: Db, ids: readonly string[]): InboxMessage[] {
  return stmt(
    db,
    `SELECT m.id, m.seq, m.body, m.sender_kind, m.sender_plate, m.sender_owner_id
       FROM json_each(?) k JOIN messages m ON m.rowid = k.value ->> 0 AND m.id = k.value ->> 1`,
  ).all(JSON.stringify(ids.map((id) => messageKey(db, id)))) as InboxMessage[];
}

export function getMessage(db: Db, id: string): MessageRecord | undefined {
  const r = stmt(db, 'SELECT * FROM messages WHERE rowid = ? AND id = ?').get(...messageKey(db, id)) as MessageRow | undefined;
  return r && messageDto(db, r);
}

/**
 * Messages of a room that mention this human, newest first, among the room's latest `window`
 * messages (bounded: a room of a million messages is not scanned). For "Needs you" (docs/needs-you.md).
 */
export function humanMentionsOf(db: Db, roomId: string, ownerId: string, window: number, limit: number): MessageRecord[] {
  const rows = stmt(
    db,
    `SELECT * FROM (SELECT * FROM messages WHERE room_id = ? ORDER BY seq DESC LIMIT ?)
      WHERE NOT (sender_kind = 'human' AND sender_owner_id = ?) AND instr(mentions, ?) > 0 ORDER BY seq DESC LIMIT ?`,
  ).all(roomId, window, ownerId, `"owner_id":"${ownerId}"`, limit * 4) as MessageRow[];
  const cache: SenderCache = new Map();
  return rows
    .map((r) => messageDto(db, r, cache))
    .filter((m) => m.mentions.some((x) => x.kind === 'human' && x.owner_id === ownerId))
    .slice(0, limit);
}
