import type { ApiResult } from '../api';
import { client } from '../client';
import type { Message, MessageDeliveries, MessageDelivery } from '../types';
import { useChat } from './chat';
import { createRoomResource } from './room-resource';

/** How many of a room's latest messages that mention agents the chat asks about (the server answers at most 100). */
export const MESSAGE_WAKES = 100;

export interface MessageWakes {
  /** Per message, what became of each agent it mentions (its status, and its wake when one was queued). */
  byMessage: Map<string, MessageDelivery[]>;
  /** Messages created from this moment on are answered whole ('' = all); older ones show nothing rather than a guess. */
  coveredFrom: string;
}

/** A message that mentions an agent other than its sender: the window asks what became of it. */
export function mentionsAgents(m: Message): boolean {
  return m.mentions.some((x) => x.kind === 'agent' && x.plate && x.plate !== m.sender.plate);
}

/** The ids the window asks about: the latest loaded messages that mention agents, newest last. */
export function deliveryIds(messages: readonly Message[]): string[] {
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && out.length < MESSAGE_WAKES; i--) if (mentionsAgents(messages[i]!)) out.push(messages[i]!.message_id);
  return out.reverse();
}

const NONE: ApiResult<MessageDeliveries> = { ok: true, status: 200, data: { messages: [], covered_from: '' } };

/**
 * What became of each mention of the room's latest messages (docs/ui.md "Wake status per
 * message"), from contracts.wakes.deliveries: the mention's status as the server says it
 * (`inbox` with its reason when nothing can wake the agent) and its wake. Live: reloaded on
 * `wakes.changed` and when the loaded messages that mention agents change (ChatView).
 */
export const useMessageWakes = createRoomResource<MessageWakes, object, MessageDeliveries>({
  name: 'wake status',
  request: async (roomId) => {
    const ids = deliveryIds(useChat.getState().rooms[roomId]?.data?.messages ?? []);
    if (!ids.length) return NONE;
    return client.wakes.deliveries({ params: { id: roomId }, query: { message_ids: ids.join(',') } });
  },
  accept: (page) => ({ byMessage: new Map(page.messages.map((m) => [m.message_id, m.wakes])), coveredFrom: page.covered_from }),
  refreshOn: ['wakes.changed'],
  refreshDelayMs: 250,
});
