import { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { agentPresence } from '../core.js';
import { needsYou } from './service.js';
import { withWakeActions } from '../wakes/rules.js';
import { withTaskActions } from '../tasks/rules.js';

const needsQuery = z.object({
  room: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

/** "Needs you": what waits on the signed-in human across its rooms (docs/needs-you.md). */
export const needsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/needs-you',
    query: needsQuery,
    handler: ({ core, owner }, { query }) => {
      const needs = needsYou(core.db, owner.owner_id, {
        room: query.room,
        limit: query.limit ?? 200,
        stalled: (plate) => agentPresence(core, plate) === 'stalled',
      });
      // Each wake and task says what the signed-in human may do with it (its buttons follow).
      const items = needs.items.map((i) => ({
        ...i,
        ...(i.wake ? { wake: withWakeActions(core.db, owner.owner_id, [i.wake])[0] } : {}),
        ...(i.task ? { task: withTaskActions(core.db, i.task.room, owner.owner_id, [i.task])[0] } : {}),
      }));
      return { ...needs, items };
    },
  }),
];
