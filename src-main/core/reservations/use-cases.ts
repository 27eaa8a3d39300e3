import { defineUseCase } from '../usecase/define.js';
import { listReservations, roomReservationsForHuman } from './service.js';
import { listReservationsInput, listReservationsOutput } from './schemas.js';

/**
 * The reservation use case that agents and humans share, declared once (usecase/define.ts).
 * Reserving, renewing and releasing one's own paths are the agents' (reservations/tools.ts); a
 * force-release with a reason and the pre-commit guard's check are routes of their own
 * (reservations/routes.ts).
 */

/**
 * Who holds or waits for which paths. The view follows the caller: an agent may narrow it to one
 * path; the window's adds the recent releases and whether the owner may force-release
 * (docs/reservations.md).
 */
export const listReservationsUseCase = defineUseCase({
  input: listReservationsInput,
  output: listReservationsOutput,
  room: 'member',
  handler: ({ core, caller }, a) =>
    caller.kind === 'human' ? roomReservationsForHuman(core.db, caller.ownerId, a.room) : listReservations(core.db, a.room, a.path),
  tool: {
    name: 'list_reservations',
    title: 'List reservations',
    scope: 'READ',
    description: 'Who holds or waits for which paths in the room; use it before editing a file.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  route: { method: 'GET', path: '/v1/rooms/:id/reservations', input: ({ params }) => ({ room: params.id }) },
});
