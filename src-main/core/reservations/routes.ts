import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';
import { authenticateAgent } from '../agents/authenticate.js';
import { getRoom, isAgentMember } from '../rooms/store.js';
import { forceRelease, guardCheck, roomReservationsForHuman } from './service.js';

/** Paths per guard request; the hook sends a large commit in batches. */
export const GUARD_PATHS_MAX = 2000;

export const reservationRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/reservations',
    handler: ({ core, owner, params }) => roomReservationsForHuman(core.db, owner.owner_id, params.id!),
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/reservations/:reservationId/release',
    handler: ({ core, owner, params, body }) => {
      const input = parseWith(z.object({ reason: z.string().min(1).max(500) }), body);
      return forceRelease(core, owner.owner_id, params.id!, params.reservationId!, input.reason);
    },
  },
  {
    /**
     * The pre-commit guard's question. Public so that the hook file never needs a secret:
     * with `Authorization: Bearer <agent credential or passport>` (AGENT_ROOMS_CREDENTIAL,
     * which runners and connect set) the committer is that agent; without it the committer
     * is the `plate` the hook read from AGENT_ROOMS_PLATE, or nobody (a human). Either way
     * the answer only names holders of the paths asked about, in a room whose id one knows.
     */
    method: 'POST',
    path: '/v1/rooms/:id/reservations/check',
    public: true,
    handler: async ({ core, req, params, body }) => {
      const input = parseWith(
        z.object({
          paths: z.array(z.string().min(1).max(4096)).max(GUARD_PATHS_MAX),
          plate: z.string().min(1).max(64).optional(),
        }),
        body,
      );
      const roomId = params.id!;
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      let committer = input.plate;
      let authenticated = false;
      if (m) {
        const id = await authenticateAgent(core, m[1], `${core.baseUrl}/mcp`);
        committer = id.plate;
        authenticated = true;
      }
      if (!getRoom(core.db, roomId) || (authenticated && !isAgentMember(core.db, roomId, committer!))) {
        throw new AppError('NOT_FOUND', 'room not found (or the committing agent is not a member of it)');
      }
      const hits = guardCheck(core.db, roomId, input.paths, committer);
      return {
        ok: hits.length === 0,
        committer: authenticated ? committer : (input.plate ?? null),
        authenticated,
        conflicts: hits.map((h) => (authenticated ? h : { path: h.path, holder: h.holder, pattern: h.pattern, expires_at: h.expires_at })),
      };
    },
  },
];
