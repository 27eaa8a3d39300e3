import type { ApiResult } from '../api';
import { client } from '../client';
import type { ReservationRelease, RoomReservations } from '../types';
import { createRoomResource } from './room-resource';

interface ReservationActions {
  forceRelease: (roomId: string, reservationId: string, reason: string) => Promise<ApiResult<ReservationRelease>>;
}

/** Path reservations per room (contracts.reservations.list), refreshed on reservations.changed. */
export const useReservations = createRoomResource<RoomReservations, ReservationActions>({
  name: 'reservations',
  request: (roomId) => client.reservations.list({ params: { id: roomId } }),
  refreshOn: ['reservations.changed'],
  extend: ({ get: getState }) => ({
    forceRelease: async (roomId, reservationId, reason) => {
      const r = await client.reservations.release({ params: { id: roomId, reservationId }, body: { reason } });
      if (r.ok) await getState().load(roomId);
      return r;
    },
  }),
});
