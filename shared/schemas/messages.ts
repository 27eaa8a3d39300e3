import { z } from 'zod';

/**
 * The message records, declared once: read_room and send_message return them, GET and POST
 * /v1/rooms/:id/messages answer with them, and shared/api-types.ts derives the UI's types from
 * them (`z.output`), importing types only (docs/architecture.md, "Use cases").
 */

export const party = z.enum(['agent', 'human']);

/** Someone a message mentions. */
export const mention = z.object({ kind: party, handle: z.string(), plate: z.string().optional(), owner_id: z.string() });

/** A message as read_room and send_message return it (messages/service.ts). */
export const messageRecord = z.object({
  message_id: z.string(),
  seq: z.number().int(),
  room: z.string(),
  sender: z.object({ kind: party, plate: z.string().optional(), owner_id: z.string(), handle: z.string(), name: z.string() }),
  body: z.string(),
  mentions: z.array(mention),
  parent_id: z.string().nullable(),
  created_at: z.string(),
});

export const readRoomOutput = z.object({ messages: z.array(messageRecord), has_more: z.boolean(), next_before_seq: z.number().int().nullable() });

/** What became of one mentioned agent: a wake status, or `inbox` with the reason (wakes/outcome.ts). */
export const mentionWake = z.object({
  plate: z.string(),
  handle: z.string(),
  wake_id: z.string().nullable(),
  status: z.enum(['queued', 'running', 'handled', 'failed', 'held', 'merged', 'inbox']),
  target: z.enum(['channel', 'runner', 'pull']).nullable(),
  reason: z.string().nullable(),
  /**
   * Why no wake was queued, for the window to key on (the reason is the words): `trust_off`, the
   * agent's owner has not turned Trust on in this room; `no_invoke`; `revoked`; `already_woken`.
   */
  reason_code: z.enum(['trust_off', 'no_invoke', 'revoked', 'already_woken']).optional(),
});

/** `replayed` when an idempotency_key returned the message posted before. */
export const sendMessageOutput = messageRecord.extend({ replayed: z.boolean().optional(), wakes: z.array(mentionWake) });

/**
 * What send_message answers an agent: the message's place and what became of each mention, not
 * the body and sender it just wrote, which would only fill its context again (docs/contract.md,
 * "What send_message answers"). POST /v1/rooms/:id/messages answers the whole record.
 */
export const sentMessage = sendMessageOutput.pick({ message_id: true, seq: true, room: true, mentions: true, parent_id: true, created_at: true, replayed: true, wakes: true });
