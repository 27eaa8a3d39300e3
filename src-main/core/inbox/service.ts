import { notifyActed, type Core } from '../core.js';
import { immediate } from '../db/open.js';
import { invalid } from '../errors/app-error.js';
import { ackByIds, ackUpToSeq, roomOfItem, roomsOfOpenItemsUpTo } from './store.js';

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
