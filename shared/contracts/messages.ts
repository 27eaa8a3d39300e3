import { z } from 'zod';
import { endpoint } from './contract.js';
import { readRoomOutput, sendMessageOutput } from '../schemas/messages.js';

/** The message endpoints (docs/contract.md): a room's history, and a human posting to it. */

/** A page of history holds at most this many messages (read_room's `limit` has the same bound). */
export const HISTORY_PAGE_MAX = 200;

// Fields send_message and POST /v1/rooms/:id/messages share (messages/schemas.ts builds the tool's input on them).
// No schema maximum on a body: sendMessage measures bytes, so any oversize body is PAYLOAD_TOO_LARGE (413), not INVALID_ARGUMENT.
export const messageBody = z.string();
export const mentionTargets = z.array(z.string().min(1).max(120)).max(50);
export const parentId = z.string().min(1).max(200);
export const idempotencyKey = z.string().min(1).max(200);

/** read_room's paging, from the query string. */
export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(HISTORY_PAGE_MAX).optional(),
  before_seq: z.coerce.number().int().min(1).optional(),
});

/** A human posts as itself. */
export const postMessageBody = z.object({
  body: messageBody,
  mention_targets: mentionTargets.optional(),
  parent_id: parentId.optional(),
  idempotency_key: idempotencyKey.optional(),
});

export const messages = {
  history: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/messages',
    summary: 'A page of the room’s messages, oldest first; before_seq pages back.',
    query: historyQuery,
    output: readRoomOutput,
  }),
  post: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/messages',
    summary: 'Posts a message as the caller; answers it with what became of each mentioned agent.',
    body: postMessageBody,
    output: sendMessageOutput,
    status: 201,
  }),
};
