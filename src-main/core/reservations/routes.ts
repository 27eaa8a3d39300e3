import { defineRoute } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { authenticateAgent } from '../agents/authenticate.js';
import { getRoom, isAgentMember } from '../rooms/store.js';
import { contracts } from '../../../shared/contracts/index.js';
import type { AnswerOf } from '../../../shared/contracts/contract.js';
import { guardCheck } from './service.js';
import { forceReleaseUseCase, listReservationsUseCase } from './use-cases.js';

const check = contracts.reservations.check;

/**
 * The reservation routes. The list is a use case shared with list_reservations, the force-release
 * a human's use case (reservations/use-cases.ts); the guard's check is a transport route.
 */
export const reservationRoutes = [
  listReservationsUseCase.route,
  forceReleaseUseCase.route,
  defineRoute({
    /**
     * A transport route (docs/architecture.md "Transport routes"), not a use case: it reads the
     * agent's bearer credential from the request itself, which no use case sees. Its wire face is
     * still its contract's (contracts.reservations.check).
     *
     * The pre-commit guard's question. Public so that the hook file never needs a secret:
     * with `Authorization: Bearer <agent credential or passport>` (AGENT_ROOMS_CREDENTIAL,
     * which runners and connect set) the committer is that agent, a member of the room, and
     * the answer names each holder and pattern; without it the committer is the `plate` the
     * hook read from AGENT_ROOMS_PLATE, or nobody (a human), and the answer is only yes or no
     * for each path asked: which of them are reserved, never by whom or under which pattern
     * (docs/reservations.md "The pre-commit guard").
     */
    method: check.method,
    path: check.path,
    auth: check.auth,
    body: check.body,
    handler: async ({ core, req, params }, { body }): Promise<AnswerOf<typeof check>> => {
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
        committer: (authenticated ? committer : body.plate) ?? null,
        authenticated,
        conflicts: authenticated ? hits : [...new Set(hits.map((h) => h.path))].map((path) => ({ path })),
      };
    },
  }),
];
