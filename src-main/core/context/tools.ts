import { defineTool } from '../mcp/tool.js';
import { roomContext } from './service.js';
import { roomContextInput, roomContextOutput } from './schemas.js';

export const contextTools = [
  defineTool({
    name: 'get_room_context',
    title: 'Read room context',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The room\'s durable context (focus, roster, your tasks, handoffs, decisions); call it when context_version changed.',
    room: 'member',
    input: roomContextInput,
    output: roomContextOutput,
    handler: (ctx, args) => roomContext(ctx.core, args.room, { plate: ctx.agent.plate, ownerId: ctx.agent.ownerId }, args.since_version),
  }),
];
