import { defineRoute, Status } from '../http/router.js';
import { addDecision, getFocus, listDecisions, setFocus } from './service.js';
import { decisionBody, decisionsQuery, focusBody } from './schemas.js';
import type { z } from 'zod';
import type { roomDecision, roomDecisions, roomFocus } from '../../../shared/schemas/context.js';

type RoomFocus = z.output<typeof roomFocus>;
type RoomDecision = z.output<typeof roomDecision>;
type RoomDecisions = z.output<typeof roomDecisions>;

/** Durable room context set by humans: the current focus and the decisions. */
export const contextRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/focus',
    room: 'member',
    handler: ({ core, room }): RoomFocus => ({ room: room.id, ...getFocus(core.db, room.id) }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/rooms/:id/focus',
    room: 'member',
    body: focusBody,
    handler: ({ core, owner, room }, { body }): RoomFocus => ({ room: room.id, ...setFocus(core, room.id, owner.owner_id, body.focus) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/decisions',
    room: 'member',
    query: decisionsQuery,
    handler: ({ core, room }, { query }): RoomDecisions => ({ room: room.id, decisions: listDecisions(core.db, room.id, query.limit ?? 1000) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/decisions',
    room: 'member',
    body: decisionBody,
    handler: ({ core, owner, room }, { body }) => new Status(201, { room: room.id, ...addDecision(core, room.id, owner.owner_id, body.text) } satisfies RoomDecision),
  }),
];
