import type { Core } from '../core.js';
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
  roomDto,
  roomsOfOwner,
  setTrust,
  touchRoom,
  trustMode,
  type RoomRole,
} from './store.js';
import { getAgentByPlate } from '../agents/store.js';
import { getOwner } from '../owners/store.js';
import { instancesOf } from './instances.js';
import { INVITATIONS_PAGE, invitedOf, invitedRoomsOf, markInvited } from './invitations.js';
import { addHumanPermission, removeAgentPermission } from './rules.js';
import type { TrustMode } from '../../../shared/api-types.js';

/**
 * The room use cases: each owns its transaction and emits its events after commit, so the
 * routes and tools that call them only parse, call and map (docs/architecture.md).
 */

/** A human creates a room and becomes its admin. */
export function openRoom(core: Core, { ownerId, name }: { ownerId: string; name: string }) {
  const room = createRoom(core.db, ownerId, name);
  core.bus.emit({ type: 'rooms.changed', owners: [ownerId] });
  return { ...roomDto(core.db, room), role: 'admin' as const, trust: 'blocked' as const };
}

/**
 * The rooms a human is in, with the human's role and Trust in each. A room another owner invited
 * it to and it has not accepted is marked `invited` (docs/needs-you.md "Invitations"), the newest
 * 100 of those only: the window lists them under Invitations, not among its rooms.
 */
export function roomsOfHuman(core: Core, { ownerId }: { ownerId: string }) {
  // Only the newest invitations are listed: another owner's 2,000 invitations cost one page, not 2,000 room records.
  const all = invitedRoomsOf(core.db, ownerId);
  const invited = new Set(all.slice(0, INVITATIONS_PAGE));
  const hidden = new Set(all.slice(INVITATIONS_PAGE));
  return roomsOfOwner(core.db, ownerId).filter((r) => !hidden.has(r.id)).map((r) => ({
    ...roomDto(core.db, r),
    role: humanRole(core.db, r.id, ownerId),
    trust: trustMode(core.db, r.id, ownerId),
    ...(invited.has(r.id) ? { invited: true } : {}),
  }));
}

/** The room's humans and agents and its live instances. */
export function roomMembers(core: Core, { room }: { room: string }) {
  const m = listMembers(core.db, room);
  return { humans: markInvitees(core.db, room, m.humans), agents: m.agents, instances: instancesOf(core, room) };
}

/** What `addMember` adds: a human with a role (a room admin's act) or one of the caller's own agents. */
export type NewMember = { owner_id: string; role: RoomRole } | { plate: string };

/**
 * A member adds someone to the room: a room admin adds humans; any member adds its own agents
 * (an agent joins a room only by its own owner's action, docs/security.md, item 2).
 */
export function addMember(core: Core, { room, ownerId, callerRole, member }: { room: string; ownerId: string; callerRole: RoomRole; member: NewMember }) {
  const { db } = core;
  if ('owner_id' in member) {
    if (!addHumanPermission(callerRole).ok) throw new AppError('FORBIDDEN', 'only a room admin may add humans', { roomId: room });
    if (!getOwner(db, member.owner_id)) throw new AppError('NOT_FOUND', 'owner not found');
    // Another owner added by this one is invited until they accept (rooms/invitations.ts); adding oneself is one step.
    const invite = member.owner_id !== ownerId;
    const fresh = invite && !humanRole(db, room, member.owner_id);
    immediate(db, () => {
      addHuman(db, room, member.owner_id, member.role);
      if (fresh) markInvited(db, room, member.owner_id, ownerId);
      touchRoom(db, room, ['roster']);
    });
    if (fresh) core.bus.emit({ type: 'rooms.changed', owners: [member.owner_id] });
  } else {
    const a = getAgentByPlate(db, member.plate);
    if (!a) throw new AppError('NOT_FOUND', 'agent not found');
    // A room admin of another owner cannot pull the agent in.
    if (a.owner_id !== ownerId) {
      throw new AppError('FORBIDDEN', 'an agent joins a room only by its own owner; ask that owner to add it', {
        roomId: room,
        reason: 'not_agent_owner',
      });
    }
    if (a.revoked_at !== null) throw new AppError('CONFLICT', 'this agent is revoked');
    immediate(db, () => {
      addAgent(db, room, a.plate, ownerId);
      touchRoom(db, room, ['roster']);
    });
  }
  core.bus.emit({ type: 'members.changed', room });
  const m = listMembers(db, room);
  return { humans: markInvitees(db, room, m.humans), agents: m.agents };
}

/** The member list says who is only invited (docs/needs-you.md "Invitations"). */
function markInvitees<H extends { owner_id: string }>(db: Core['db'], room: string, humans: H[]): Array<H & { invited?: true }> {
  const invited = invitedOf(db, room);
  return invited.size ? humans.map((h) => (invited.has(h.owner_id) ? { ...h, invited: true as const } : h)) : humans;
}

/** The agent's owner or a room admin takes an agent out of the room. */
export function removeRoomAgent(core: Core, { room, ownerId, callerRole, plate }: { room: string; ownerId: string; callerRole: RoomRole; plate: string }) {
  const { db } = core;
  const a = getAgentByPlate(db, plate);
  if (!a) throw new AppError('NOT_FOUND', 'agent not found');
  if (!removeAgentPermission({ ownerId, role: callerRole }, a.owner_id).ok) {
    throw new AppError('FORBIDDEN', 'only the agent’s owner or a room admin may remove it', { roomId: room });
  }
  immediate(db, () => {
    removeAgent(db, room, a.plate);
    touchRoom(db, room, ['roster']);
  });
  core.bus.emit({ type: 'members.changed', room });
  return { removed: true };
}

/** A human leaves the room (the last admin names the next one); its agents and Trust leave with it (`leaveRoom`). */
export function leave(core: Core, { room, ownerId, newAdmin }: { room: string; ownerId: string; newAdmin?: string }) {
  leaveRoom(core.db, room, ownerId, newAdmin);
  core.bus.emit({ type: 'members.changed', room });
  core.bus.emit({ type: 'rooms.changed', owners: [ownerId] });
  return { left: true, room };
}

/**
 * An owner's Trust in a room, set by the human (PUT /v1/rooms/:id/consent) or by one of its
 * agents on the human's word (set_room_consent): one write, one event.
 */
export function setOwnerTrust(core: Core, { room, ownerId, mode }: { room: string; ownerId: string; mode: TrustMode }) {
  const { db } = core;
  immediate(db, () => {
    setTrust(db, room, ownerId, mode);
    touchRoom(db, room, ['roster']);
  });
  core.bus.emit({ type: 'trust.changed', room });
  return { room, owner_id: ownerId, mode };
}

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
