import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import { addDecision, getFocus, listDecisions, setFocus, DECISION_MAX, FOCUS_MAX } from './service.js';

/** Durable room context set by humans: the current focus and the decisions. */
export const contextRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/focus',
    handler: ({ core, owner, params }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      return { room: room.id, ...getFocus(core.db, room.id) };
    },
  },
  {
    method: 'PUT',
    path: '/v1/rooms/:id/focus',
    handler: ({ core, owner, params, body }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(z.object({ focus: z.string().max(FOCUS_MAX * 2) }), body);
      return { room: room.id, ...setFocus(core, room.id, owner.owner_id, input.focus) };
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id/decisions',
    handler: ({ core, owner, params, url }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      const q = parseWith(z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }), Object.fromEntries(url.searchParams));
      return { room: room.id, decisions: listDecisions(core.db, room.id, q.limit ?? 1000) };
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/decisions',
    handler: ({ core, owner, params, body }) => {
      const room = requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(z.object({ text: z.string().min(1).max(DECISION_MAX * 2) }), body);
      return new Status(201, { room: room.id, ...addDecision(core, room.id, owner.owner_id, input.text) });
    },
  },
];
