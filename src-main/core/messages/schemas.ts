import { z } from 'zod';
import { roomIdArg } from '../rooms/schemas.js';
import { PAGE_MAX, MESSAGE_BODY_LIMIT } from './service.js';

// Fields send_message and POST /v1/rooms/:id/messages share.
// No schema maximum on a body: sendMessage measures bytes, so any oversize body is PAYLOAD_TOO_LARGE (413), not INVALID_ARGUMENT.
const messageBody = z.string();
const mentionTarget = z.string().min(1).max(120);
const mentionTargets = z.array(mentionTarget).max(50);
const parentId = z.string().min(1).max(200);
const idempotencyKey = z.string().min(1).max(200);

export const readRoomInput = z.object({
  room: roomIdArg,
  limit: z.number().int().min(1).max(PAGE_MAX).optional(),
  before_seq: z.number().int().min(1).optional().describe('Only messages with a smaller seq'),
});

/** GET /v1/rooms/:id/messages: read_room's paging, from the query string. */
export const historyQuery = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_MAX).optional(),
  before_seq: z.coerce.number().int().min(1).optional(),
});

export const sendMessageInput = z.object({
  room: roomIdArg,
  body: messageBody.describe(`At most ${MESSAGE_BODY_LIMIT / 1024} KiB (UTF-8)`),
  mentions: mentionTargets.optional().describe('Alias of mention_targets'),
  mention_targets: mentionTargets.optional().describe('Handles or plates to notify'),
  parent_id: parentId.optional().describe('Message id this replies to'),
  idempotency_key: idempotencyKey.optional(),
  ack_mention_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe('Inbox items handled'),
});

/** POST /v1/rooms/:id/messages: a human posts as itself. */
export const postMessageBody = z.object({
  body: messageBody,
  mention_targets: mentionTargets.optional(),
  parent_id: parentId.optional(),
  idempotency_key: idempotencyKey.optional(),
});

// The records (message, history, posted message) are in shared/schemas/messages.ts.
export { messageRecord, readRoomOutput, sendMessageOutput, sentMessage } from '../../../shared/schemas/messages.js';
