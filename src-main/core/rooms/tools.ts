import { z } from 'zod';
import { defineTool } from '../mcp/tool.js';
import { listMembers, roomDto, roomsOfAgent } from './store.js';
import { instancesOf } from './instances.js';
import { listMembersInput, listMembersOutput, listRoomsOutput } from './schemas.js';

// Other capabilities' room tools take their `room` argument from here.
export { roomIdArg } from './schemas.js';

export const roomTools = [
  defineTool({
    name: 'list_rooms',
    title: 'List rooms',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The rooms you are in, with id, name, last seq and context_version; call it first when you need a room id.',
    input: z.object({}),
    output: listRoomsOutput,
    handler: (ctx) => ({ rooms: roomsOfAgent(ctx.core.db, ctx.agent.plate).map((r) => roomDto(ctx.core.db, r)) }),
  }),
  defineTool({
    name: 'list_members',
    title: 'List room members',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The room\'s humans and agents with handles; use it to find whom to mention or assign.',
    input: listMembersInput,
    output: listMembersOutput,
    room: 'member',
    handler: (ctx, args) => {
      const m = listMembers(ctx.core.db, args.room);
      return {
        humans: m.humans,
        agents: m.agents.map((a) => ({ ...a, live_instances: instancesOf(ctx.core, args.room, a.plate).length })),
      };
    },
  }),
];
