import { endpoint } from './contract.js';
import { forceReleaseBody, guardCheckAnswer, guardCheckBody, reservationRelease, roomReservationsRecord } from '../schemas/reservations.js';

/** The path reservations of a room (docs/reservations.md): the list, a human's force-release, and the pre-commit guard's question. */
export const reservations = {
  list: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/reservations',
    summary: 'Who holds or waits for which paths, the recent releases, and whether the caller may force-release.',
    output: roomReservationsRecord,
  }),
  release: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/reservations/:reservationId/release',
    summary: "Force-releases a live reservation (a room admin or the holder's owner), keeping the reason.",
    body: forceReleaseBody,
    output: reservationRelease,
  }),
  check: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/reservations/check',
    summary: "The pre-commit guard's question: which staged paths another agent holds exclusively (a transport route: it reads the agent's bearer credential itself).",
    body: guardCheckBody,
    output: guardCheckAnswer,
    auth: 'public',
  }),
};
