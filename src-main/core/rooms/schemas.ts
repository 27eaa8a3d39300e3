import { z } from 'zod';
import { agentOwnerRef } from '../agents/schemas.js';

/** The `room` argument of every room tool. */
export const roomIdArg = z.string().min(1).max(200);

const roomRole = z.enum(['admin', 'member']);
const trustMode = z.enum(['trust_room', 'blocked']);

/** A room as tools show it (rooms/store.ts `roomDto`). */
export const roomRecord = z.object({
  room_id: z.string(),
  name: z.string(),
  created_by: z.string(),
  cross_owner: z.boolean(),
  last_seq: z.number().int(),
  context_version: z.number().int(),
  created_at: z.string(),
});

export const listRoomsOutput = z.object({ rooms: z.array(roomRecord) });

const humanMember = z.object({ kind: z.literal('human'), owner_id: z.string(), name: z.string(), handle: z.string(), role: roomRole });
const agentMember = z.object({
  kind: z.literal('agent'),
  plate: z.string(),
  name: z.string(),
  handle: z.string(),
  owner: agentOwnerRef,
  revoked: z.boolean(),
  live_instances: z.number().int(),
});

export const listMembersInput = z.object({ room: roomIdArg });
export const listMembersOutput = z.object({ humans: z.array(humanMember), agents: z.array(agentMember) });

/** POST /v1/rooms. */
export const createRoomBody = z.object({ name: z.string().min(1).max(100) });

/** POST /v1/rooms/:id/members: a human (by a room admin) or one's own agent. */
export const addMemberBody = z.union([
  z.object({ owner_id: z.string().min(1).max(200), role: roomRole }),
  z.object({ plate: z.string().min(1).max(40) }),
]);

/** POST /v1/rooms/:id/leave: the last admin names the next one. */
export const leaveRoomBody = z.strictObject({ new_admin: z.string().min(1).max(200).optional() });

/** PUT /v1/rooms/:id/consent: the calling owner's Trust in the room. */
export const trustBody = z.object({ mode: trustMode });
