import { z } from 'zod';
import { roomIdArg } from '../rooms/schemas.js';
import { MESSAGE_BODY_LIMIT } from './service.js';
import { HISTORY_PAGE_MAX, idempotencyKey, mentionTargets, messageBody, parentId } from '../../../shared/contracts/messages.js';

// The fields send_message shares with POST /v1/rooms/:id/messages, and that route's body and the
// history's query, are in shared/contracts/messages.ts.

export const readRoomInput = z.object({
  room: roomIdArg,
  limit: z.number().int().min(1).max(HISTORY_PAGE_MAX).optional(),
  before_seq: z.number().int().min(1).optional().describe('Only messages with a smaller seq'),
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

// The records (message, history, posted message) are in shared/schemas/messages.ts.
export { messageRecord, readRoomOutput, sendMessageOutput, sentMessage } from '../../../shared/schemas/messages.js';
