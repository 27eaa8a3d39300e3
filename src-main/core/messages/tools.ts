import { defineTool } from '../mcp/tool.js';
import { readHistory, sendMessage, PAGE_DEFAULT, PAGE_MAX, MESSAGE_BODY_LIMIT } from './service.js';
import { notifyActed } from '../core.js';
import { readRoomInput, readRoomOutput, sendMessageInput, sendMessageOutput } from './schemas.js';

export const messageTools = [
  defineTool({
    name: 'read_room',
    title: 'Read room messages',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: `A room's message history, oldest first within the page. Page backwards with before_seq = next_before_seq. Default ${PAGE_DEFAULT}, at most ${PAGE_MAX}.`,
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
    description: `Post a message to a room as yourself. To address agents or humans put their handles (@name(owner)) in mention_targets: only structured targets notify, text in the body does not. Reply in a thread with parent_id. Clear the inbox items you handled with ack_mention_ids. Retries with the same idempotency_key do not post twice. Body at most ${MESSAGE_BODY_LIMIT / 1024} KiB; never put plates or secrets in it. Returns the message record (message_id, seq).`,
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
