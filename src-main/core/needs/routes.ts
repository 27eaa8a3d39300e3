import { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { agentPresence } from '../core.js';
import { needsYou } from './service.js';

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
    handler: ({ core, owner }, { query }) => needsYou(core.db, owner.owner_id, {
        room: query.room,
        limit: query.limit ?? 200,
        stalled: (plate) => agentPresence(core, plate) === 'stalled',
      }),
  }),
];
