import { defineUseCase, agentCaller } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { addDecision, getFocus, listDecisions, roomContext, setFocus } from './service.js';
import { roomContextInput, roomContextOutput } from './schemas.js';

/**
 * The room context use cases, each declared once (usecase/define.ts): humans set and read the
 * focus and the decisions (shared/contracts/context.ts); agents read the whole durable context,
 * those among it, with get_room_context.
 */

/** The room's current focus. */
export const readFocusUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.context.focus },
  handler: ({ core }, { params }) => ({ room: params.id, ...getFocus(core.db, params.id) }),
});

/** Sets (or, empty, clears) the room's focus. */
export const setFocusUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.context.setFocus },
  handler: ({ core, caller }, { params, body }) => ({ room: params.id, ...setFocus(core, params.id, caller.ownerId, body.focus) }),
});

/** The room's newest decisions, oldest first. */
export const listDecisionsUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.context.decisions },
  handler: ({ core }, { params, query }) => ({ room: params.id, decisions: listDecisions(core.db, params.id, query.limit ?? 1000) }),
});

/** Records a decision. */
export const addDecisionUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.context.decide },
  handler: ({ core, caller }, { params, body }) => ({ room: params.id, ...addDecision(core, params.id, caller.ownerId, body.text) }),
});

/** get_room_context: a snapshot, or the delta since the version the agent last saw. */
export const roomContextUseCase = defineUseCase({
  input: roomContextInput,
  output: roomContextOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    const agent = agentCaller(caller);
    return roomContext(core, a.room, { plate: agent.plate, ownerId: agent.ownerId }, a.since_version);
  },
  tool: {
    name: 'get_room_context',
    title: 'Read room context',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The room\'s durable context (focus, roster, your tasks, handoffs, decisions); call it when context_version changed.',
  },
});
