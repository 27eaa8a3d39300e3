import { defineTool } from '../mcp/tool.js';
import { listInbox, PAGE_DEFAULT } from '../inbox/store.js';
import { ackMentions } from './service.js';
import { requireAgentRoom } from '../rooms/store.js';
import { getAgentByPlate, agentHandle } from '../agents/store.js';
import { ownerHandle } from '../owners/store.js';
import { ackMentionsInput, ackMentionsOutput, checkMentionsInput, checkMentionsOutput } from './schemas.js';

export const inboxTools = [
  defineTool({
    name: 'check_mentions',
    title: 'Check mentions',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your unacknowledged mentions and task items, oldest first; use it only in pull mode (when not woken).',
    input: checkMentionsInput,
    output: checkMentionsOutput,
    handler: (ctx, args) => {
      const { db } = ctx.core;
      const rooms = args.room ? [args.room, ...(args.rooms ?? [])] : args.rooms;
      for (const r of rooms ?? []) requireAgentRoom(db, r, ctx.agent.plate);
      const limit = args.limit ?? PAGE_DEFAULT;
      const rows = listInbox(ctx.core, ctx.agent.plate, rooms, args.since_seq ?? 0, limit);
      const items = rows.map((r) => {
        let from: { kind: 'agent' | 'human'; handle: string } | undefined;
        if (r.sender_kind === 'agent' && r.sender_plate) {
          const a = getAgentByPlate(db, r.sender_plate);
          if (a) from = { kind: 'agent', handle: agentHandle(a) };
        } else if (r.sender_owner_id) {
          const o = ownerHandle(db, r.sender_owner_id);
          if (o) from = { kind: 'human', handle: `@${o.slug}` };
        }
        return {
          mention_id: r.id,
          seq: r.seq,
          kind: r.kind,
          room: r.room_id,
          trust_level: r.trust_level,
          ...(r.task_id ? { task_id: r.task_id } : {}),
          ...(r.message_id ? { message: { message_id: r.message_id, seq: r.msg_seq, from, body: r.body } } : {}),
          created_at: new Date(r.created_at).toISOString(),
        };
      });
      return { items, next_since_seq: rows.length ? rows[rows.length - 1]!.seq : (args.since_seq ?? 0), has_more: rows.length === limit };
    },
  }),
  defineTool({
    name: 'ack_mentions',
    title: 'Acknowledge mentions',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy: marks inbox items handled when neither send_message nor complete_task did; returns how many were cleared.',
    input: ackMentionsInput,
    output: ackMentionsOutput,
    handler: (ctx, args) => ({
      acked: ackMentions(ctx.core, { plate: ctx.agent.plate, sessionId: ctx.sessionId, mentionIds: args.mention_ids, lastMentionSeq: args.last_mention_seq }),
    }),
  }),
];
