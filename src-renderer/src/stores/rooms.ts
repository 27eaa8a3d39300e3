import { create } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import { client } from '../client';
import type { Members, Owner, OwnerTrust, Room, RoomTrust, Role, TrustMode } from '../types';
import { createRoomResource } from './room-resource';

/** A room's humans, agents and live instances; what each instance works on follows the board's leases. */
export const useMembers = createRoomResource<Members>({
  name: 'members',
  request: (roomId) => client.rooms.members({ params: { id: roomId } }),
  refreshOn: ['members.changed', 'instances.changed', 'trust.changed', 'board.changed'],
});

/** Every owner's Trust in a room. */
export const useTrust = createRoomResource<OwnerTrust[], object, RoomTrust>({
  name: 'Trust',
  request: (roomId) => client.rooms.trust({ params: { id: roomId } }),
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
    const r = await client.rooms.list();
    if (r.ok) set({ rooms: r.data.rooms, status: 'ready', error: undefined });
    else set({ status: 'error', error: r.error });
  },
  loadOwners: async () => {
    // The owners with their rights answer the primary owner only; every other owner reads the
    // directory of names, which is all that adding a human to a room needs.
    const rights = await client.owners.list();
    if (rights.ok) return set({ owners: rights.data.owners });
    const r = await client.owners.people();
    if (r.ok) set({ owners: r.data.people });
  },
  create: async (name) => {
    const r = await client.rooms.create({ body: { name } });
    if (r.ok) await getState().load();
    return r;
  },
  addHuman: async (roomId, ownerId, role) => {
    const r = await client.rooms.addMember({ params: { id: roomId }, body: { owner_id: ownerId, role } });
    if (r.ok) await useMembers.getState().load(roomId);
    return r;
  },
  addAgent: async (roomId, plate) => {
    const r = await client.rooms.addMember({ params: { id: roomId }, body: { plate } });
    if (r.ok) await Promise.all([useMembers.getState().load(roomId), getState().load()]);
    return r;
  },
  setTrust: async (roomId, mode) => {
    const r = await client.rooms.setTrust({ params: { id: roomId }, body: { mode } });
    if (r.ok) set((s) => ({ rooms: s.rooms.map((x) => (x.room_id === roomId ? { ...x, trust: mode } : x)) }));
    if (r.ok) void useTrust.getState().load(roomId);
    return r;
  },
}));

/** The plate -> handle map of a room, so the UI never shows a raw plate where a handle belongs. */
export function handleOfPlate(members: Members | undefined, plate: string): string | undefined {
  return members?.agents.find((a) => a.plate === plate)?.handle;
}
