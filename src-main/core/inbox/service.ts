import { notifyActed, type Core } from '../core.js';
import { immediate } from '../db/open.js';
import { invalid } from '../errors/app-error.js';
import { ackByIds, ackUpToSeq, listInbox, roomOfItem, roomsOfOpenItemsUpTo } from './store.js';
import { requireAgentRoom } from '../rooms/store.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { ownerHandle } from '../owners/store.js';

/**
 * check_mentions: the agent's unacknowledged inbox items in the rooms named (each must be one of
 * its rooms; none named: all of them), oldest first from `sinceSeq`, one page of `limit`, each
 * with the message it points at and who wrote it.
 */
export function checkMentions(core: Core, input: { plate: string; rooms?: string[]; sinceSeq: number; limit: number }) {
  const { db } = core;
  const { plate, rooms, sinceSeq, limit } = input;
  for (const r of rooms ?? []) requireAgentRoom(db, r, plate);
  const rows = listInbox(core, plate, rooms, sinceSeq, limit);
  const items = rows.map((r) => {
    let from: { kind: 'agent' | 'human'; handle: string } | undefined;
    if (r.sender_kind === 'agent' && r.sender_plate) {
      const a = getAgentByPlate(db, r.sender_plate);
      if (a) from = { kind: 'agent', handle: agentHandle(a) };
    } else if (r.sender_owner_id) {
      const o = ownerHandle(db, r.sender_owner_id);
      if (o) from = { kind: 'human', handle: `@${o.slug}` };
    }
    return {
      mention_id: r.id,
      seq: r.seq,
      kind: r.kind,
      room: r.room_id,
      trust_level: r.trust_level,
      ...(r.task_id ? { task_id: r.task_id } : {}),
      ...(r.message_id ? { message: { message_id: r.message_id, seq: r.msg_seq, from, body: r.body } } : {}),
      created_at: new Date(r.created_at).toISOString(),
    };
  });
  return { items, next_since_seq: rows.length ? rows[rows.length - 1]!.seq : sinceSeq, has_more: rows.length === limit };
}

/**
 * ack_mentions (legacy): marks an agent's inbox items handled, by id and/or up to a seq, in one
 * transaction; after commit, the rooms they were in count as acted in (waiting wakes are handled).
 */
export function ackMentions(core: Core, input: { plate: string; sessionId: string; mentionIds?: readonly string[]; lastMentionSeq?: number }): number {
  if (!input.mentionIds && input.lastMentionSeq === undefined) throw invalid('give mention_ids or last_mention_seq');
  const { db } = core;
  const { plate, lastMentionSeq } = input;
  const rooms = new Set<string>();
  const ids = input.mentionIds ?? [];
  for (const id of ids) {
    const r = roomOfItem(db, plate, id);
    if (r) rooms.add(r);
  }
  const acked = immediate(db, () => {
    let n = ackByIds(db, plate, ids);
    if (lastMentionSeq !== undefined) {
      for (const r of roomsOfOpenItemsUpTo(db, plate, lastMentionSeq)) rooms.add(r);
      n += ackUpToSeq(db, plate, lastMentionSeq);
    }
    return n;
  });
  for (const room of rooms) notifyActed(core, { plate, roomId: room, sessionId: input.sessionId, tool: 'ack_mentions' });
  return acked;
}
