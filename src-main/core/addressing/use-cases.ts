import { defineUseCase } from '../usecase/define.js';
import { agentCandidates, parseHandle } from './handles.js';
import { instancesOf } from '../rooms/instances.js';
import { invalid } from '../errors/app-error.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { listInstancesInput, listInstancesOutput, resolveHandleInput, resolveHandleOutput } from './schemas.js';

/**
 * The addressing use cases (usecase/define.ts): whom a handle names in a room, and who is live
 * there. Agents only (a tool side, no route): addressing/tools.ts lists the tools they yield.
 */

export const resolveHandleUseCase = defineUseCase({
  input: resolveHandleInput,
  output: resolveHandleOutput,
  room: 'member',
  handler: ({ core }, args) => {
    const { db } = core;
    const h = parseHandle(args.handle);
    if (!h) throw invalid('handle must look like @name(owner)#session; owner and session are optional', 'bad_handle');
    const candidates = agentCandidates(db, args.room, h).map((c) => {
      const a = getAgentByPlate(db, c.plate)!;
      const instances = instancesOf(core, args.room, c.plate).filter((i) => !h.session || i.handle.endsWith(`#${h.session}`));
      return { plate: a.plate, name: a.name, handle: agentHandle(a), owner: { owner_id: a.owner_id, name: a.owner_name }, instances };
    });
    return { handle: args.handle, candidates };
  },
  tool: {
    name: 'resolve_handle',
    title: 'Resolve a handle',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Returns the agents and live instances a handle @name(owner)#session matches; use it when a name may be ambiguous.',
  },
});

export const listInstancesUseCase = defineUseCase({
  input: listInstancesInput,
  output: listInstancesOutput,
  room: 'member',
  handler: ({ core }, args) => ({ instances: instancesOf(core, args.room, args.plate) }),
  tool: {
    name: 'list_instances',
    title: 'List live instances',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Who is live in the room: each instance with its #session handle, host, last activity and held tasks; use before addressing one instance.',
  },
});
