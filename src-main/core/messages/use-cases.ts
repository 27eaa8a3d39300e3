import { notifyActed } from '../core.js';
import { defineUseCase } from '../usecase/define.js';
import { readHistory, sendMessage } from './service.js';
import { readRoomInput, readRoomOutput, sendMessageInput, sendMessageOutput, sentMessage } from './schemas.js';
import { contracts } from '../../../shared/contracts/index.js';

/**
 * The message use cases, each declared once (usecase/define.ts): messages/tools.ts and
 * messages/routes.ts list the tools and routes they yield.
 */

/** A page of the room's messages, oldest first; `before_seq` pages back. */
export const readRoomUseCase = defineUseCase({
  input: readRoomInput,
  output: readRoomOutput,
  room: 'member',
  handler: ({ core }, args) => readHistory(core.db, args.room, args.limit, args.before_seq),
  tool: {
    name: 'read_room',
    title: 'Read room messages',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'A page of the room\'s messages, oldest first; use before_seq to page back when the wake or context is not enough.',
  },
  route: { contract: contracts.messages.history },
});

/**
 * Posts a message as the caller. Humans post with `mention_targets` only; agents may also name
 * them in `mentions` (an alias) and clear inbox items they handled (`ack_mention_ids`).
 */
export const sendMessageUseCase = defineUseCase({
  input: sendMessageInput,
  output: sendMessageOutput,
  room: 'member',
  handler: ({ core, caller }, args) => {
    const msg = sendMessage(core, caller, {
      roomId: args.room,
      body: args.body,
      mentionTargets: [...(args.mention_targets ?? []), ...(args.mentions ?? [])],
      parentId: args.parent_id,
      idempotencyKey: args.idempotency_key,
      ackMentionIds: args.ack_mention_ids,
    });
    // A fresh message handled the sender's waiting wakes in its own commit (service.ts); a replay wrote nothing.
    if (caller.kind === 'agent' && msg.replayed) notifyActed(core, { plate: caller.plate, roomId: args.room, sessionId: caller.sessionId, tool: 'send_message' });
    return msg;
  },
  tool: {
    name: 'send_message',
    title: 'Send a message',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Posts a message to reply or report; returns its id and what became of each mention (only mention_targets notify, not the body).',
    // The agent knows what it wrote: it gets the message's place and the wakes, not its own body back.
    output: sentMessage,
    present: (m) => ({
      message_id: m.message_id,
      seq: m.seq,
      room: m.room,
      mentions: m.mentions,
      parent_id: m.parent_id,
      created_at: m.created_at,
      ...(m.replayed !== undefined && { replayed: m.replayed }),
      wakes: m.wakes,
    }),
  },
  route: { contract: contracts.messages.post },
});
