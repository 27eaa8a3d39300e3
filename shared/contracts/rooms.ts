import { z } from 'zod';
import { endpoint } from './contract.js';
import { withActions } from './acts.js';
import { AGENT_MEMBER_ACTIONS, HUMAN_MEMBER_ACTIONS, ROOM_ACTIONS } from '../acts.js';
import {
  agentMember,
  humanMember,
  humanRoomRecord,
  instanceRecord,
  invitationList,
  presence,
  roomMembersRecord,
  roomRole,
  roomTrustRecord,
  trustModeSchema,
} from '../schemas/rooms.js';

/** The room endpoints (docs/rooms.md): rooms, their members, Trust and invitations. */

/** A room as /v1 shows it: with the caller's role and Trust, and what the caller may do in it now. */
export const humanRoom = withActions(humanRoomRecord, ROOM_ACTIONS);

/** A human of the members list; on the caller's own record, when `leave` is refused as `last_admin`, `next_admins` names whom it may name (rooms/rules.ts). */
export const humanMemberWithActions = withActions(humanMember, HUMAN_MEMBER_ACTIONS).extend({ next_admins: z.array(z.string()).optional() });

/** An agent of the members list, with its presence and what the caller may do with it. */
export const agentMemberWithActions = withActions(agentMember.extend({ presence }), AGENT_MEMBER_ACTIONS);

/** GET /v1/rooms/:id/members: each member with what the caller may do with it, and the live instances. */
export const membersRecord = z.object({
  humans: z.array(humanMemberWithActions),
  agents: z.array(agentMemberWithActions),
  instances: z.array(instanceRecord),
});

export const createRoomBody = z.object({ name: z.string().min(1).max(100) });

/** A human (by a room admin) or one's own agent. */
export const addMemberBody = z.union([
  z.object({ owner_id: z.string().min(1).max(200), role: roomRole }),
  z.object({ plate: z.string().min(1).max(40) }),
]);

/** The last admin names the next one (one of its record's `next_admins`). */
export const leaveRoomBody = z.strictObject({ new_admin: z.string().min(1).max(200).optional() });

/** The calling owner's Trust in the room. */
export const trustBody = z.object({ mode: trustModeSchema });

/** A Trust as set: the room and the mode (set_room_consent answers these), and whose it is. */
export const roomConsent = z.object({ room: z.string(), mode: trustModeSchema });
export const trustSet = roomConsent.extend({ owner_id: z.string() });

export const rooms = {
  create: endpoint({
    method: 'POST',
    path: '/v1/rooms',
    summary: 'Creates a room; its creator is its admin.',
    body: createRoomBody,
    output: humanRoom,
    status: 201,
  }),
  list: endpoint({
    method: 'GET',
    path: '/v1/rooms',
    summary: 'The rooms the caller is in, with its role and Trust in each.',
    output: z.object({ rooms: z.array(humanRoom) }),
  }),
  read: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id',
    summary: 'One room, with the caller’s role and Trust in it.',
    output: humanRoom,
  }),
  members: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/members',
    summary: 'The room’s humans and agents (with presence) and its live instances.',
    output: membersRecord,
  }),
  addMember: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/members',
    summary: 'Adds a human (a room admin) or one of the caller’s own agents.',
    body: addMemberBody,
    output: roomMembersRecord.omit({ instances: true }),
    status: 201,
  }),
  removeAgent: endpoint({
    method: 'DELETE',
    path: '/v1/rooms/:id/agents/:plate',
    summary: 'Takes an agent out of the room (its owner or a room admin).',
    output: z.object({ removed: z.boolean() }),
  }),
  leave: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/leave',
    summary: 'The caller leaves the room with its agents and Trust; the last admin names the next one.',
    body: leaveRoomBody,
    output: z.object({ left: z.boolean(), room: z.string() }),
  }),
  setTrust: endpoint({
    method: 'PUT',
    path: '/v1/rooms/:id/consent',
    summary: 'Sets the caller’s Trust in the room.',
    body: trustBody,
    output: trustSet,
  }),
  trust: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/trust',
    summary: 'Every owner’s Trust in the room, with how many live agents each has there.',
    output: roomTrustRecord,
  }),
  invitations: endpoint({
    method: 'GET',
    path: '/v1/invitations',
    summary: 'The rooms other owners added the caller to, waiting for Accept or Decline (newest 100, with the total).',
    output: invitationList,
  }),
  acceptInvitation: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/invitation/accept',
    summary: 'Accepts an invitation: the room is the caller’s.',
    output: humanRoom,
  }),
  declineInvitation: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/invitation/decline',
    summary: 'Declines an invitation: the caller is out of the room.',
    output: z.object({ declined: z.boolean(), room: z.string() }),
  }),
};
