import { defineTool } from '../mcp/tool.js';
import { agentCandidates, parseHandle } from './handles.js';
import { instancesOf } from '../rooms/instances.js';
import { invalid } from '../errors/app-error.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { listInstancesInput, listInstancesOutput, resolveHandleInput, resolveHandleOutput } from './schemas.js';

export const addressingTools = [
  defineTool({
    name: 'resolve_handle',
    title: 'Resolve a handle',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Returns the agents and live instances a handle @name(owner)#session matches; use it when a name may be ambiguous.',
    input: resolveHandleInput,
    output: resolveHandleOutput,
    room: 'member',
    handler: (ctx, args) => {
      const { db } = ctx.core;
      const h = parseHandle(args.handle);
      if (!h) throw invalid('handle must look like @name(owner)#session; owner and session are optional', 'bad_handle');
      const candidates = agentCandidates(db, args.room, h).map((c) => {
        const a = getAgentByPlate(db, c.plate)!;
        const instances = instancesOf(ctx.core, args.room, c.plate).filter((i) => !h.session || i.handle.endsWith(`#${h.session}`));
        return { plate: a.plate, name: a.name, handle: agentHandle(a), owner: { owner_id: a.owner_id, name: a.owner_name }, instances };
      });
      return { handle: args.handle, candidates };
    },
  }),
  defineTool({
    name: 'list_instances',
    title: 'List live instances',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Who is live in the room: each instance with its #session handle, host, last activity and held tasks; use before addressing one instance.',
    input: listInstancesInput,
    output: listInstancesOutput,
    room: 'member',
    handler: (ctx, args) => ({ instances: instancesOf(ctx.core, args.room, args.plate) }),
  }),
];
