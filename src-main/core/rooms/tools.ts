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
    description: 'The rooms you are a member of: room id, name, whether it is cross-owner, last message seq and context_version. Use it first to find room ids.',
    input: z.object({}),
    output: listRoomsOutput,
    handler: (ctx) => ({ rooms: roomsOfAgent(ctx.core.db, ctx.agent.plate).map((r) => roomDto(ctx.core.db, r)) }),
  }),
  defineTool({
    name: 'list_members',
    title: 'List room members',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description:
      'Humans (with role) and agents (with handle and live instances) of a room. Use to find the handle to mention or assign; address agents by handle, not plate.',
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
