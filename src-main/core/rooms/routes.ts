import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';
import {
  addAgent,
  addHuman,
  createRoom,
  humanRole,
  leaveRoom,
  listMembers,
  removeAgent,
  requireHumanRoom,
  roomDto,
  roomsOfOwner,
  setTrust,
  touchRoom,
  trustMode,
} from './store.js';
import { getAgentByPlate } from '../agents/store.js';
import { getOwner } from '../owners/store.js';
import { instancesOf } from './instances.js';

export const roomRoutes: LegacyRoute[] = [
  {
    method: 'POST',
    path: '/v1/rooms',
    handler: ({ core, owner, body }) => {
      const input = parseWith(z.object({ name: z.string().min(1).max(100) }), body);
      const room = createRoom(core.db, owner.owner_id, input.name);
      core.bus.emit({ type: 'rooms.changed', owners: [owner.owner_id] });
      return new Status(201, { ...roomDto(core.db, room), role: 'admin', trust: 'blocked' });
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms',
    handler: ({ core, owner }) => ({
      rooms: roomsOfOwner(core.db, owner.owner_id).map((r) => ({
        ...roomDto(core.db, r),
        role: humanRole(core.db, r.id, owner.owner_id),
        trust: trustMode(core.db, r.id, owner.owner_id),
      })),
    }),
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id',
    handler: ({ core, owner, params }) => {
      const r = requireHumanRoom(core.db, params.id!, owner.owner_id);
      return { ...roomDto(core.db, r), role: humanRole(core.db, r.id, owner.owner_id), trust: trustMode(core.db, r.id, owner.owner_id) };
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id/members',
    handler: ({ core, owner, params }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const m = listMembers(core.db, params.id!);
      return { humans: m.humans, agents: m.agents, instances: instancesOf(core, params.id!) };
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/members',
    handler: ({ core, owner, params, body }) => {
      const roomId = params.id!;
      const role = requireHumanRoom(core.db, roomId, owner.owner_id) && humanRole(core.db, roomId, owner.owner_id);
      const input = parseWith(
        z.union([
          z.object({ owner_id: z.string().min(1).max(200), role: z.enum(['admin', 'member']) }),
          z.object({ plate: z.string().min(1).max(40) }),
        ]),
        body,
      );
      if ('owner_id' in input) {
        if (role !== 'admin') throw new AppError('FORBIDDEN', 'only a room admin may add humans', { roomId });
        if (!getOwner(core.db, input.owner_id)) throw new AppError('NOT_FOUND', 'owner not found');
        core.db.transaction(() => {
          addHuman(core.db, roomId, input.owner_id, input.role);
          touchRoom(core.db, roomId, ['roster']);
        })();
      } else {
        const a = getAgentByPlate(core.db, input.plate);
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
        core.db.transaction(() => {
          addAgent(core.db, roomId, a.plate, owner.owner_id);
          touchRoom(core.db, roomId, ['roster']);
        })();
      }
      core.bus.emit({ type: 'members.changed', room: roomId });
      const m = listMembers(core.db, roomId);
      return new Status(201, { humans: m.humans, agents: m.agents });
    },
  },
  {
    method: 'DELETE',
    path: '/v1/rooms/:id/agents/:plate',
    handler: ({ core, owner, params }) => {
      const roomId = params.id!;
      requireHumanRoom(core.db, roomId, owner.owner_id);
      const a = getAgentByPlate(core.db, params.plate!);
      if (!a) throw new AppError('NOT_FOUND', 'agent not found');
      if (a.owner_id !== owner.owner_id && humanRole(core.db, roomId, owner.owner_id) !== 'admin') {
        throw new AppError('FORBIDDEN', 'only the agent’s owner or a room admin may remove it', { roomId });
      }
      core.db.transaction(() => {
        removeAgent(core.db, roomId, a.plate);
        touchRoom(core.db, roomId, ['roster']);
      })();
      core.bus.emit({ type: 'members.changed', room: roomId });
      return { removed: true };
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/leave',
    handler: ({ core, owner, params, body }) => {
      const roomId = params.id!;
      requireHumanRoom(core.db, roomId, owner.owner_id);
      const input = parseWith(z.strictObject({ new_admin: z.string().min(1).max(200).optional() }), body);
      leaveRoom(core.db, roomId, owner.owner_id, input.new_admin);
      core.bus.emit({ type: 'members.changed', room: roomId });
      core.bus.emit({ type: 'rooms.changed', owners: [owner.owner_id] });
      return { left: true, room: roomId };
    },
  },
  {
    method: 'PUT',
    path: '/v1/rooms/:id/consent',
    handler: ({ core, owner, params, body }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(z.object({ mode: z.enum(['trust_room', 'blocked']) }), body);
      core.db.transaction(() => {
        setTrust(core.db, params.id!, owner.owner_id, input.mode);
        touchRoom(core.db, params.id!, ['roster']);
      })();
      core.bus.emit({ type: 'trust.changed', room: params.id! });
      return { room: params.id, owner_id: owner.owner_id, mode: input.mode };
    },
  },
  {
    // Every owner's Trust in the room, for its members to see who lets whom assign and wake (the room's Trust panel).
    method: 'GET',
    path: '/v1/rooms/:id/trust',
    handler: ({ core, params, owner }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const m = listMembers(core.db, params.id!);
      const ids = [...new Set([...m.humans.map((h) => h.owner_id), ...m.agents.map((a) => a.owner.owner_id)])];
      return {
        owners: ids.map((id) => {
          const o = getOwner(core.db, id);
          return {
            owner_id: id,
            name: o?.name ?? 'unknown',
            handle: o?.handle ?? '',
            mode: trustMode(core.db, params.id!, id),
            agents: m.agents.filter((a) => a.owner.owner_id === id && !a.revoked).length,
          };
        }),
      };
    },
  },
];
