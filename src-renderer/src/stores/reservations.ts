import { enc, get, post, type ApiResult } from '../api';
import type { ReservationRelease, RoomReservations } from '../types';
import { createRoomResource } from './room-resource';

interface ReservationActions {
  forceRelease: (roomId: string, reservationId: string, reason: string) => Promise<ApiResult<ReservationRelease>>;
}

/** Path reservations per room (GET /v1/rooms/:id/reservations), refreshed on reservations.changed. */
export const useReservations = createRoomResource<RoomReservations, ReservationActions>({
  name: 'reservations',
  request: (roomId) => get<RoomReservations>(`/v1/rooms/${enc(roomId)}/reservations`),
  refreshOn: ['reservations.changed'],
  extend: ({ get: getState }) => ({
    forceRelease: async (roomId, reservationId, reason) => {
      const r = await post<ReservationRelease>(`/v1/rooms/${enc(roomId)}/reservations/${enc(reservationId)}/release`, { reason });
      if (r.ok) await getState().load(roomId);
      return r;
    },
  }),
});
