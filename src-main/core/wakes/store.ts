import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { getAgentByPlate } from '../agents/store.js';
import { isCrossOwner, trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';

export type WakeTrigger = 'mention' | 'assignment' | 'successor';

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
}

/** Queues a wake (inside the caller's transaction). Returns its id, or undefined if this event already woke the agent. */
export function enqueueWake(db: Db, w: WakeInput): string | undefined {
  const id = newId('wake');
  const r = stmt(
    db,
    `INSERT OR IGNORE INTO wakes (id, plate, room_id, trigger, task_id, message_id, content, event_key, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(id, w.plate, w.roomId, w.trigger, w.taskId ?? null, w.messageId ?? null, w.content, w.eventKey, Date.now());
  return r.changes ? id : undefined;
}

/**
 * May an actor of `actorOwnerId` wake this agent in this room? It must hold INVOKE, not be
 * revoked, and in a cross-owner room an actor of another owner needs that owner's Trust on.
 */
export function mayWake(db: Db, roomId: string, plate: string, actorOwnerId: string): boolean {
  const a = getAgentByPlate(db, plate);
  if (!a || a.revoked_at !== null || !hasScope(a.scopes, 'INVOKE')) return false;
  if (a.owner_id === actorOwnerId) return true;
  if (!isCrossOwner(db, roomId)) return true;
  return trustMode(db, roomId, a.owner_id) === 'trust_room';
}
