import { z } from 'zod';
import { mentionWake } from './messages.js';
import { humanWake } from './wakes.js';

/**
 * What became of each agent a message mentions, as the window shows it under the message
 * (docs/ui.md "Wake status per message"): the mention's status as the message response says it
 * (`inbox` with its reason when nothing can wake the agent), and the wake itself when one was
 * queued, as its reader may see it (its elapsed time, cause and the acts allowed on it).
 */
export const messageDelivery = mentionWake.extend({ wake: humanWake.nullable() });

export const messageDeliveriesQuery = z.object({
  /** Comma-separated message ids of this room, at most MESSAGE_DELIVERY_IDS (messages/deliveries.ts). */
  message_ids: z.string().max(10_000),
});

export const messageDeliveries = z.object({
  /** One entry per asked message that mentions agents and is recent enough to be known. */
  messages: z.array(z.object({ message_id: z.string(), wakes: z.array(messageDelivery) })),
  /**
   * Messages created from this moment on are answered whole; older ones are left out rather than
   * guessed ('' when the room's every wake was read).
   */
  covered_from: z.string(),
});
