import { enc, get } from '../api';
import type { Wake, WakePage } from '../types';
import { createRoomResource } from './room-resource';

/** How many of a room's latest wakes the chat joins to its messages. */
export const MESSAGE_WAKES = 200;

export interface MessageWakes {
  /** Wakes by the message that caused them. */
  byMessage: Map<string, Wake[]>;
  /** Messages created from this moment on have all their wakes here (older ones may have more). */
  coveredFrom: string | null;
}

/**
 * The wakes of a room's latest messages, joined by message_id: what became of each mention
 * (docs/ui.md, "Wake status per message"). Live: reloaded on `wakes.changed`.
 */
export const useMessageWakes = createRoomResource<MessageWakes, object, WakePage>({
  name: 'wake status',
  request: (roomId) => get<WakePage>(`/v1/rooms/${enc(roomId)}/wakes?limit=${MESSAGE_WAKES}`),
  accept: (page) => {
    const byMessage = new Map<string, Wake[]>();
    // Newest first from the server: kept oldest first per message; a retry replaces its original.
    for (const w of [...page.wakes].reverse()) {
      if (!w.message_id) continue;
      const list = byMessage.get(w.message_id) ?? [];
      const i = list.findIndex((x) => x.plate === w.plate);
      if (i >= 0) list[i] = w;
      else list.push(w);
      byMessage.set(w.message_id, list);
    }
    const oldest = page.wakes[page.wakes.length - 1];
    return { byMessage, coveredFrom: page.next_cursor ? (oldest?.created_at ?? null) : '' };
  },
  refreshOn: ['wakes.changed'],
  refreshDelayMs: 250,
});
