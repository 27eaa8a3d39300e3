import { z } from 'zod';
import { agentMember, humanMember, roomRecord, roomRole, trustModeSchema as trustMode } from '../../../shared/schemas/rooms.js';

/** The `room` argument of every room tool. */
export const roomIdArg = z.string().min(1).max(200);

export const listRoomsOutput = z.object({ rooms: z.array(roomRecord) });

/** list_members: each agent with how many live instances it has in the room. */
const toolAgentMember = agentMember.extend({ live_instances: z.number().int() });

export const listMembersInput = z.object({ room: roomIdArg });
export const listMembersOutput = z.object({ humans: z.array(humanMember), agents: z.array(toolAgentMember) });

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

/** set_room_consent: the agent's owner's Trust in the room (PUT /v1/rooms/:id/consent without the room). */
export const setRoomConsentInput = z.object({ room: roomIdArg, mode: trustMode });
export const setRoomConsentOutput = z.object({ room: z.string(), mode: trustMode });
/** The Trust as set: the room, the owner, the mode. */
export const setTrustOutput = setRoomConsentOutput.extend({ owner_id: z.string() });
