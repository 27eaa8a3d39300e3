import { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { agentPresence } from '../core.js';
import { dismissedNeeds, needsYou } from './service.js';
import { acknowledgeMentionsUseCase, dismissNeedUseCase, restoreNeedUseCase } from './use-cases.js';
import { withWakeActions } from '../wakes/rules.js';
import { withTaskActions } from '../tasks/rules.js';
import { invitationsOf } from '../rooms/invitations.js';
import type { Db } from '../db/open.js';
import type { NeedItem } from './service.js';

const needsQuery = z.object({
  room: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

const dismissedQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });

/** Each wake and task says what the signed-in human may do with it (its buttons follow). */
function withActions(db: Db, ownerId: string, items: NeedItem[]) {
  return items.map((i) => ({
    ...i,
    ...(i.wake ? { wake: withWakeActions(db, ownerId, [i.wake])[0] } : {}),
    ...(i.task ? { task: withTaskActions(db, i.task.room, ownerId, [i.task])[0] } : {}),
  }));
}

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
      // Invitations wait on the human too: counted here, listed by GET /v1/invitations.
      const invitations = query.room ? 0 : invitationsOf(core.db, owner.owner_id, 0).total;
      return { ...needs, items: withActions(core.db, owner.owner_id, needs.items), invitations };
    },
  }),
  dismissNeedUseCase.route,
  restoreNeedUseCase.route,
  acknowledgeMentionsUseCase.route,
  defineRoute({
    method: 'GET',
    path: '/v1/needs-you/dismissed',
    query: dismissedQuery,
    handler: ({ core, owner }, { query }) => {
      const d = dismissedNeeds(core.db, owner.owner_id, query.limit ?? 50);
      return { ...d, items: withActions(core.db, owner.owner_id, d.items) };
    },
  }),
];
