import { listReservationsUseCase, releasePathsUseCase, renewPathsUseCase, reservePathsUseCase } from './use-cases.js';

/** The reservation tools, in their listed order (reservations/use-cases.ts); list_reservations shares its use case with GET /v1/rooms/:id/reservations. */
export const reservationTools = [reservePathsUseCase.tool, releasePathsUseCase.tool, renewPathsUseCase.tool, listReservationsUseCase.tool];
