import { create } from 'zustand';
import { enc, get, post, put, type ApiError, type ApiResult } from '../api';
import type { Members, Owner, OwnerTrust, Room, Role, TrustMode } from '../types';

export interface Loadable<T> {
  data?: T;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error?: ApiError;
}

interface RoomsState {
  rooms: Room[];
  status: Loadable<unknown>['status'];
  error?: ApiError;
  members: Record<string, Loadable<Members>>;
  owners: Owner[];
  /** Every owner's Trust per room (GET /v1/rooms/:id/trust). */
  trust: Record<string, OwnerTrust[]>;
  loadTrust: (roomId: string) => Promise<void>;
  load: () => Promise<void>;
  loadOwners: () => Promise<void>;
  create: (name: string) => Promise<ApiResult<Room>>;
  loadMembers: (roomId: string) => Promise<void>;
  addHuman: (roomId: string, ownerId: string, role: Role) => Promise<ApiResult<unknown>>;
  addAgent: (roomId: string, plate: string) => Promise<ApiResult<unknown>>;
  setTrust: (roomId: string, mode: TrustMode) => Promise<ApiResult<unknown>>;
}

export const useRooms = create<RoomsState>((set, getState) => ({
  rooms: [],
  status: 'idle',
  members: {},
  owners: [],
  trust: {},
  loadTrust: async (roomId) => {
    const r = await get<{ owners: OwnerTrust[] }>(`/v1/rooms/${enc(roomId)}/trust`);
    if (r.ok) set((s) => ({ trust: { ...s.trust, [roomId]: r.data.owners } }));
  },
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
  loadMembers: async (roomId) => {
    const prev = getState().members[roomId];
    if (!prev?.data) set((s) => ({ members: { ...s.members, [roomId]: { status: 'loading' } } }));
    const r = await get<Members>(`/v1/rooms/${enc(roomId)}/members`);
    set((s) => ({
      members: {
        ...s.members,
        [roomId]: r.ok ? { status: 'ready', data: r.data } : { status: 'error', error: r.error, data: s.members[roomId]?.data },
      },
    }));
  },
  addHuman: async (roomId, ownerId, role) => {
    const r = await post(`/v1/rooms/${enc(roomId)}/members`, { owner_id: ownerId, role });
    if (r.ok) await getState().loadMembers(roomId);
    return r;
  },
  addAgent: async (roomId, plate) => {
    const r = await post(`/v1/rooms/${enc(roomId)}/members`, { plate });
    if (r.ok) await Promise.all([getState().loadMembers(roomId), getState().load()]);
    return r;
  },
  setTrust: async (roomId, mode) => {
    const r = await put(`/v1/rooms/${enc(roomId)}/consent`, { mode });
    if (r.ok) set((s) => ({ rooms: s.rooms.map((x) => (x.room_id === roomId ? { ...x, trust: mode } : x)) }));
    if (r.ok) void getState().loadTrust(roomId);
    return r;
  },
}));

/** The plate -> handle map of a room, so the UI never shows a raw plate where a handle belongs. */
export function handleOfPlate(members: Members | undefined, plate: string): string | undefined {
  return members?.agents.find((a) => a.plate === plate)?.handle;
}
