import { defineTool } from '../mcp/tool.js';
import { roomContext } from './service.js';
import { roomContextInput, roomContextOutput } from './schemas.js';

export const contextTools = [
  defineTool({
    name: 'get_room_context',
    title: 'Read room context',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description:
      "The room's durable context, keyed to its context_version: current focus, live roster, your active tasks (lock and stale state), the latest handoff note addressed to you, durable decisions, file manifest refs (never bodies), and message and board cursors. Pass since_version = the context_version you last saw: you get {not_modified: true} when nothing changed, only the changed classes when some did, or a full snapshot when your cursor is too old. Call it once after context compaction or reconnect, or when a wake's context_version differs from the last one you saw; not every turn.",
    room: 'member',
    input: roomContextInput,
    output: roomContextOutput,
    handler: (ctx, args) => roomContext(ctx.core, args.room, { plate: ctx.agent.plate, ownerId: ctx.agent.ownerId }, args.since_version),
  }),
];
