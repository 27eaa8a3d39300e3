import { endpoint } from './contract.js';
import { decisionBody, decisionsQuery, focusBody, roomDecision, roomDecisions, roomFocus } from '../schemas/context.js';

/** A room's durable context set by humans, which agents read with get_room_context: the current focus and the decisions. */
export const context = {
  focus: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/focus',
    summary: "The room's current focus (all null when none is set).",
    output: roomFocus,
  }),
  setFocus: endpoint({
    method: 'PUT',
    path: '/v1/rooms/:id/focus',
    summary: "Sets the room's focus; an empty one clears it.",
    body: focusBody,
    output: roomFocus,
  }),
  decisions: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/decisions',
    summary: "The room's newest decisions (limit, default all up to 1,000), oldest first.",
    query: decisionsQuery,
    output: roomDecisions,
  }),
  decide: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/decisions',
    summary: 'Records a durable decision of the room.',
    body: decisionBody,
    output: roomDecision,
    status: 201,
  }),
};
