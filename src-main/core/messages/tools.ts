import { defineTool } from '../mcp/tool.js';
import { readHistory, sendMessage } from './service.js';
import { notifyActed } from '../core.js';
import { readRoomInput, readRoomOutput, sendMessageInput, sendMessageOutput } from './schemas.js';

export const messageTools = [
  defineTool({
    name: 'read_room',
    title: 'Read room messages',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'A page of the room\'s messages, oldest first; use before_seq to page back when the wake or context is not enough.',
    input: readRoomInput,
    output: readRoomOutput,
    room: 'member',
    handler: (ctx, args) => readHistory(ctx.core.db, args.room, args.limit, args.before_seq),
  }),
  defineTool({
    name: 'send_message',
    title: 'Send a message',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Posts a message and returns it; use it to reply or report (only mention_targets notify, not the body).',
    input: sendMessageInput,
    output: sendMessageOutput,
    room: 'member',
    handler: (ctx, args) => {
      const msg = sendMessage(
        ctx.core,
        { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId },
        {
          roomId: args.room,
          body: args.body,
          mentionTargets: [...(args.mention_targets ?? []), ...(args.mentions ?? [])],
          parentId: args.parent_id,
          idempotencyKey: args.idempotency_key,
          ackMentionIds: args.ack_mention_ids,
        },
      );
      notifyActed(ctx.core, { plate: ctx.agent.plate, roomId: args.room, sessionId: ctx.sessionId, tool: 'send_message' });
      return msg;
    },
  }),
];
