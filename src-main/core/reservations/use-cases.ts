import { agentCaller, defineUseCase, type Caller } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { forceRelease, listReservations, releasePaths, renewPaths, reservePaths, roomReservationsForHuman, type Holder } from './service.js';
import {
  listReservationsInput,
  listReservationsOutput,
  releasePathsInput,
  releasePathsOutput,
  renewPathsInput,
  renewPathsOutput,
  reservePathsInput,
  reservePathsOutput,
} from './schemas.js';

/**
 * The reservation use cases, each declared once (usecase/define.ts): reservations/tools.ts and
 * reservations/routes.ts list the tools and routes they yield, in their places; the routes' wire
 * faces are shared/contracts/reservations.ts. Reserving, renewing and releasing one's own paths
 * are the agents'; a force-release with a reason is the humans'. The pre-commit guard's check is a
 * transport route (reservations/routes.ts).
 */

/** The agent calling a tool-only use case (the registry runs it for agents alone): the holder of its reservations. */
function holderOf(caller: Caller): Holder {
  const a = agentCaller(caller);
  return { plate: a.plate, ownerId: a.ownerId };
}

/** Reserves paths or globs before editing them; with `wait`, queues behind the holders. */
export const reservePathsUseCase = defineUseCase({
  input: reservePathsInput,
  output: reservePathsOutput,
  room: 'member',
  handler: ({ core, caller }, a) =>
    reservePaths(core, holderOf(caller), {
      roomId: a.room,
      paths: a.paths,
      exclusive: a.exclusive,
      ttlS: a.ttl_s,
      reason: a.reason,
      taskId: a.task_id,
      wait: a.wait,
    }),
  tool: {
    name: 'reserve_paths',
    title: 'Reserve paths',
    scope: 'WRITE',
    description: 'Reserves repo paths or globs before you edit them and returns the reservations; if held, CONFLICT names holders.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  },
});

/** Releases the caller's reservations (or its wait). */
export const releasePathsUseCase = defineUseCase({
  input: releasePathsInput,
  output: releasePathsOutput,
  room: 'member',
  handler: ({ core, caller }, a) => releasePaths(core, holderOf(caller), { roomId: a.room, reservationIds: a.reservation_ids, paths: a.paths }),
  tool: {
    name: 'release_paths',
    title: 'Release paths',
    scope: 'WRITE',
    description: 'Releases your reservations (or a wait) once your edits are committed; returns the released ids.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
});

/** Extends the caller's reservations. */
export const renewPathsUseCase = defineUseCase({
  input: renewPathsInput,
  output: renewPathsOutput,
  room: 'member',
  handler: ({ core, caller }, a) => renewPaths(core, holderOf(caller), a.room, a.reservation_ids, a.ttl_s),
  tool: {
    name: 'renew_paths',
    title: 'Renew reservations',
    scope: 'WRITE',
    description: 'Extends your reservations to ttl_s from now while you still edit; returns them.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
});

/**
 * Who holds or waits for which paths. The view follows the caller: an agent may narrow it to one
 * path; the window's adds the recent releases and whether the owner may force-release
 * (docs/reservations.md; roomReservationsForHuman answers the route's contract).
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
  route: { contract: contracts.reservations.list, input: ({ params }) => ({ room: params.id }) },
});

/** A human's force-release, with a reason the release record keeps; the service checks its rule (a room admin, or the holder's owner). */
export const forceReleaseUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.reservations.release },
  handler: ({ core, caller }, { params, body }) =>
    forceRelease(core, { ownerId: caller.ownerId, room: params.id, reservationId: params.reservationId, reason: body.reason }),
});
