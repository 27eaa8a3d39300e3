import { create } from 'zustand';
import { enc, get, post, put, type ApiError, type ApiResult } from '../api';
import type { Members, Owner, OwnerTrust, Room, RoomTrust, Role, TrustMode } from '../types';
import { createRoomResource } from './room-resource';

/** A room's humans, agents and live instances; what each instance works on follows the board's leases. */
export const useMembers = createRoomResource<Members>({
  name: 'members',
  request: (roomId) => get<Members>(`/v1/rooms/${enc(roomId)}/members`),
  refreshOn: ['members.changed', 'instances.changed', 'trust.changed', 'board.changed'],
});

/** Every owner's Trust in a room (GET /v1/rooms/:id/trust). */
export const useTrust = createRoomResource<OwnerTrust[], object, RoomTrust>({
  name: 'Trust',
  request: (roomId) => get<RoomTrust>(`/v1/rooms/${enc(roomId)}/trust`),
  accept: (r) => r.owners,
  refreshOn: ['members.changed', 'trust.changed'],
});

interface RoomsState {
  rooms: Room[];
  status: 'idle' | 'loading' | 'ready' | 'error';
  error?: ApiError;
  owners: Owner[];
  load: () => Promise<void>;
  loadOwners: () => Promise<void>;
  create: (name: string) => Promise<ApiResult<Room>>;
  addHuman: (roomId: string, ownerId: string, role: Role) => Promise<ApiResult<unknown>>;
  addAgent: (roomId: string, plate: string) => Promise<ApiResult<unknown>>;
  setTrust: (roomId: string, mode: TrustMode) => Promise<ApiResult<unknown>>;
}

export const useRooms = create<RoomsState>((set, getState) => ({
  rooms: [],
  status: 'idle',
  owners: [],
  load: async () => {
    if (getState().status !== 'ready') set({ status: 'loading' });
    const r = await get<{ rooms: Room[] }>('/v1/rooms');
    if (r.ok) set({ rooms: r.data.rooms, status: 'ready', error: undefined });
    else set({ status: 'error', error: r.error });
  },
  loadOwners: async () => {
    // GET /v1/owners (with each owner's rights) answers the primary owner only; every other
    // owner reads the directory of names, which is all that adding a human to a room needs.
    const rights = await get<{ owners: Owner[] }>('/v1/owners');
    if (rights.ok) return set({ owners: rights.data.owners });
    const r = await get<{ people: Owner[] }>('/v1/people');
    if (r.ok) set({ owners: r.data.people });
  },
  create: async (name) => {
    const r = await post<Room>('/v1/rooms', { name });
    if (r.ok) await getState().load();
    return r;
  },
  addHuman: async (roomId, ownerId, role) => {
    const r = await post(`/v1/rooms/${enc(roomId)}/members`, { owner_id: ownerId, role });
    if (r.ok) await useMembers.getState().load(roomId);
    return r;
  },
  addAgent: async (roomId, plate) => {
    const r = await post(`/v1/rooms/${enc(roomId)}/members`, { plate });
    if (r.ok) await Promise.all([useMembers.getState().load(roomId), getState().load()]);
    return r;
  },
  setTrust: async (roomId, mode) => {
    const r = await put(`/v1/rooms/${enc(roomId)}/consent`, { mode });
    if (r.ok) set((s) => ({ rooms: s.rooms.map((x) => (x.room_id === roomId ? { ...x, trust: mode } : x)) }));
    if (r.ok) void useTrust.getState().load(roomId);
    return r;
  },
}));

/** The plate -> handle map of a room, so the UI never shows a raw plate where a handle belongs. */
export function handleOfPlate(members: Members | undefined, plate: string): string | undefined {
  return members?.agents.find((a) => a.plate === plate)?.handle;
}
