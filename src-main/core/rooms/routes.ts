import { agentPresence, type Core } from '../core.js';
import { defineRoute, Status, type Route } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { immediate } from '../db/open.js';
import {
  addAgent,
  addHuman,
  createRoom,
  humanRole,
  leaveRoom,
  listMembers,
  removeAgent,
  roomById,
  roomDto,
  roomsOfOwner,
  setTrust,
  touchRoom,
  trustMode,
} from './store.js';
import { getAgentByPlate } from '../agents/store.js';
import { getOwner } from '../owners/store.js';
import { instancesOf } from './instances.js';
import { addMemberBody, createRoomBody, leaveRoomBody, trustBody } from './schemas.js';

/** Every owner with a human or an agent in the room, with their Trust and how many live agents they have there. */
export function roomTrust(core: Core, roomId: string) {
  const m = listMembers(core.db, roomId);
  const ids = [...new Set([...m.humans.map((h) => h.owner_id), ...m.agents.map((a) => a.owner.owner_id)])];
  return {
    owners: ids.map((id) => {
      const o = getOwner(core.db, id);
      return {
        owner_id: id,
        name: o?.name ?? 'unknown',
        handle: o?.handle ?? '',
        mode: trustMode(core.db, roomId, id),
        agents: m.agents.filter((a) => a.owner.owner_id === id && !a.revoked).length,
      };
    }),
  };
}

export const roomRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/rooms',
    body: createRoomBody,
    handler: ({ core, owner }, { body }) => {
      const room = createRoom(core.db, owner.owner_id, body.name);
      core.bus.emit({ type: 'rooms.changed', owners: [owner.owner_id] });
      return new Status(201, { ...roomDto(core.db, room), role: 'admin', trust: 'blocked' });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms',
    handler: ({ core, owner }) => ({
      rooms: roomsOfOwner(core.db, owner.owner_id).map((r) => ({
        ...roomDto(core.db, r),
        role: humanRole(core.db, r.id, owner.owner_id),
        trust: trustMode(core.db, r.id, owner.owner_id),
      })),
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id',
    room: 'member',
    handler: ({ core, owner, room }) => ({ ...roomDto(core.db, roomById(core.db, room.id)), role: room.role, trust: trustMode(core.db, room.id, owner.owner_id) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/members',
    room: 'member',
    handler: ({ core, room }) => {
      const m = listMembers(core.db, room.id);
      const agents = m.agents.map((a) => ({ ...a, presence: agentPresence(core, a.plate) }));
      return { humans: m.humans, agents, instances: instancesOf(core, room.id) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/members',
    // Any member adds its own agents; humans are added by a room admin (checked below, after the body says which).
    room: 'member',
    body: addMemberBody,
    handler: ({ core, owner, room }, { body }) => {
      const roomId = room.id;
      if ('owner_id' in body) {
        if (room.role !== 'admin') throw new AppError('FORBIDDEN', 'only a room admin may add humans', { roomId });
        if (!getOwner(core.db, body.owner_id)) throw new AppError('NOT_FOUND', 'owner not found');
        immediate(core.db, () => {
          addHuman(core.db, roomId, body.owner_id, body.role);
          touchRoom(core.db, roomId, ['roster']);
        });
      } else {
        const a = getAgentByPlate(core.db, body.plate);
        if (!a) throw new AppError('NOT_FOUND', 'agent not found');
        // An agent joins a room only by its own owner's action: a room admin of another owner
        // cannot pull it in (docs/security.md, item 2).
        if (a.owner_id !== owner.owner_id) {
          throw new AppError('FORBIDDEN', 'an agent joins a room only by its own owner; ask that owner to add it', {
            roomId,
            reason: 'not_agent_owner',
          });
        }
        if (a.revoked_at !== null) throw new AppError('CONFLICT', 'this agent is revoked');
        immediate(core.db, () => {
          addAgent(core.db, roomId, a.plate, owner.owner_id);
          touchRoom(core.db, roomId, ['roster']);
        });
      }
      core.bus.emit({ type: 'members.changed', room: roomId });
      const m = listMembers(core.db, roomId);
      return new Status(201, { humans: m.humans, agents: m.agents });
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/rooms/:id/agents/:plate',
    room: 'member',
    handler: ({ core, owner, room, params }) => {
      const roomId = room.id;
      const a = getAgentByPlate(core.db, params.plate);
      if (!a) throw new AppError('NOT_FOUND', 'agent not found');
      if (a.owner_id !== owner.owner_id && room.role !== 'admin') {
        throw new AppError('FORBIDDEN', 'only the agent’s owner or a room admin may remove it', { roomId });
      }
      immediate(core.db, () => {
        removeAgent(core.db, roomId, a.plate);
        touchRoom(core.db, roomId, ['roster']);
      });
      core.bus.emit({ type: 'members.changed', room: roomId });
      return { removed: true };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/leave',
    room: 'member',
    body: leaveRoomBody,
    handler: ({ core, owner, room }, { body }) => {
      leaveRoom(core.db, room.id, owner.owner_id, body.new_admin);
      core.bus.emit({ type: 'members.changed', room: room.id });
      core.bus.emit({ type: 'rooms.changed', owners: [owner.owner_id] });
      return { left: true, room: room.id };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/rooms/:id/consent',
    room: 'member',
    body: trustBody,
    handler: ({ core, owner, room }, { body }) => {
      immediate(core.db, () => {
        setTrust(core.db, room.id, owner.owner_id, body.mode);
        touchRoom(core.db, room.id, ['roster']);
      });
      core.bus.emit({ type: 'trust.changed', room: room.id });
      return { room: room.id, owner_id: owner.owner_id, mode: body.mode };
    },
  }),
  defineRoute({
    // Every owner's Trust in the room, for its members to see who lets whom assign and wake (the room's Trust panel).
    method: 'GET',
    path: '/v1/rooms/:id/trust',
    room: 'member',
    handler: ({ core, room }) => roomTrust(core, room.id),
  }),
];
