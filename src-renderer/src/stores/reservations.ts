import { create } from 'zustand';
import { enc, get, post, type ApiError, type ApiResult } from '../api';
import type { ReservationRelease, RoomReservations } from '../types';

interface ReservationsState {
  rooms: Record<string, { data?: RoomReservations; status: 'loading' | 'ready' | 'error'; error?: ApiError }>;
  load: (roomId: string) => Promise<void>;
  forceRelease: (roomId: string, reservationId: string, reason: string) => Promise<ApiResult<ReservationRelease>>;
}

/** Path reservations per room (GET /v1/rooms/:id/reservations), refreshed on reservations.changed. */
export const useReservations = create<ReservationsState>((set, getState) => ({
  rooms: {},
  load: async (roomId) => {
    if (!getState().rooms[roomId]) set((s) => ({ rooms: { ...s.rooms, [roomId]: { status: 'loading' } } }));
    const r = await get<RoomReservations>(`/v1/rooms/${enc(roomId)}/reservations`);
    set((s) => ({ rooms: { ...s.rooms, [roomId]: r.ok ? { status: 'ready', data: r.data } : { status: 'error', error: r.error } } }));
  },
  forceRelease: async (roomId, reservationId, reason) => {
    const r = await post<ReservationRelease>(`/v1/rooms/${enc(roomId)}/reservations/${enc(reservationId)}/release`, { reason });
    if (r.ok) await getState().load(roomId);
    return r;
  },
}));
