import { z } from 'zod';
import { agentMember, humanMember, roomRecord, trustModeSchema as trustMode } from '../../../shared/schemas/rooms.js';
import { roomConsent } from '../../../shared/contracts/rooms.js';

// The routes' bodies and answers are in shared/contracts/rooms.ts.

/** The `room` argument of every room tool. */
export const roomIdArg = z.string().min(1).max(200);

export const listRoomsOutput = z.object({ rooms: z.array(roomRecord) });

/** list_members: each agent with how many live instances it has in the room. */
const toolAgentMember = agentMember.extend({ live_instances: z.number().int() });

export const listMembersInput = z.object({ room: roomIdArg });
export const listMembersOutput = z.object({ humans: z.array(humanMember), agents: z.array(toolAgentMember) });

/** set_room_consent: the agent's owner's Trust in the room (PUT /v1/rooms/:id/consent with the room named). */
export const setRoomConsentInput = z.object({ room: roomIdArg, mode: trustMode });
export const setRoomConsentOutput = roomConsent;
