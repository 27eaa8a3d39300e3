import { defineRoute } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { authenticateAgent } from '../agents/authenticate.js';
import { getRoom, isAgentMember } from '../rooms/store.js';
import { forceRelease, guardCheck } from './service.js';
import { listReservationsUseCase } from './use-cases.js';
import { forceReleaseBody, guardCheckBody } from './schemas.js';

/**
 * The reservation routes. The list is a use case shared with list_reservations (reservations/use-cases.ts);
 * the force-release checks its own rule in the service (a room admin, or the holder's owner).
 */
export const reservationRoutes = [
  listReservationsUseCase.route,
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/reservations/:reservationId/release',
    room: 'member',
    body: forceReleaseBody,
    handler: ({ core, owner, params }, { body }) => forceRelease(core, { ownerId: owner.owner_id, room: params.id, reservationId: params.reservationId, reason: body.reason }),
  }),
  defineRoute({
    /**
     * The pre-commit guard's question. Public so that the hook file never needs a secret:
     * with `Authorization: Bearer <agent credential or passport>` (AGENT_ROOMS_CREDENTIAL,
     * which runners and connect set) the committer is that agent, a member of the room, and
     * the answer names each holder and pattern; without it the committer is the `plate` the
     * hook read from AGENT_ROOMS_PLATE, or nobody (a human), and the answer is only yes or no
     * for each path asked: which of them are reserved, never by whom or under which pattern
     * (docs/reservations.md "The pre-commit guard").
     */
    method: 'POST',
    path: '/v1/rooms/:id/reservations/check',
    auth: 'public',
    body: guardCheckBody,
    handler: async ({ core, req, params }, { body }) => {
      const roomId = params.id;
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      let committer = body.plate;
      let authenticated = false;
      if (m) {
        const id = await authenticateAgent(core, m[1], `${core.baseUrl}/mcp`);
        committer = id.plate;
        authenticated = true;
      }
      if (!getRoom(core.db, roomId) || (authenticated && !isAgentMember(core.db, roomId, committer!))) {
        throw new AppError('NOT_FOUND', 'room not found (or the committing agent is not a member of it)');
      }
      const hits = await guardCheck(core.db, roomId, body.paths, committer);
      return {
        ok: hits.length === 0,
        committer: authenticated ? committer : (body.plate ?? null),
        authenticated,
        conflicts: authenticated ? hits : [...new Set(hits.map((h) => h.path))].map((path) => ({ path })),
      };
    },
  }),
];
