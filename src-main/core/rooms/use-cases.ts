import { z } from 'zod';
import { agentPresence } from '../core.js';
import { defineUseCase, type UseCaseContext } from '../usecase/define.js';
import { humanRoomRecord, invitationList, roomMembersRecord, roomTrustRecord } from '../../../shared/schemas/rooms.js';
import { acceptInvitation, declineInvitation, invitationsOf } from './invitations.js';
import { roomById, roomDto, roomsOfAgent, trustMode } from './store.js';
import { withMemberActions, withRoomActions } from './rules.js';
import { addMember, leave, openRoom, removeRoomAgent, roomMembers, roomsOfHuman, roomTrust, setOwnerTrust } from './service.js';
import {
  addMemberBody,
  createRoomBody,
  leaveRoomBody,
  listMembersInput,
  listMembersOutput,
  listRoomsOutput,
  roomIdArg,
  setRoomConsentInput,
  setRoomConsentOutput,
  setTrustOutput,
  trustBody,
} from './schemas.js';

/**
 * The room use cases, each declared once (usecase/define.ts): rooms/tools.ts and rooms/routes.ts
 * (and tasks/tools.ts for set_room_consent) list the tools and routes they yield, in their places.
 */

const roomInput = z.object({ room: roomIdArg });
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The checked room of a human caller: route use cases with `room:` always have it. */
function humanRoomOf(ctx: UseCaseContext) {
  if (!ctx.room?.role) throw new Error('a human room use case runs behind the room check');
  return { id: ctx.room.id, role: ctx.room.role };
}

export const createRoomUseCase = defineUseCase({
  input: createRoomBody,
  output: humanRoomRecord,
  handler: ({ core, caller }, input) => openRoom(core, { ownerId: caller.ownerId, name: input.name }),
  route: { method: 'POST', path: '/v1/rooms', status: 201, present: (room) => withRoomActions(room) },
});

/** The rooms the caller is in: an agent's rooms (list_rooms), or a human's with its role and Trust in each (GET /v1/rooms). */
export const listRoomsUseCase = defineUseCase({
  input: z.object({}),
  output: z.object({ rooms: z.array(humanRoomRecord) }),
  handler: ({ core, caller }) =>
    caller.kind === 'agent' ? { rooms: roomsOfAgent(core.db, caller.plate).map((r) => roomDto(core.db, r)) } : { rooms: roomsOfHuman(core, { ownerId: caller.ownerId }) },
  tool: {
    name: 'list_rooms',
    title: 'List rooms',
    annotations: readOnly,
    scope: 'READ',
    description: 'The rooms you are in, with id, name, last seq and context_version; call it first when you need a room id.',
    output: listRoomsOutput,
  },
  route: { method: 'GET', path: '/v1/rooms', present: (out) => ({ rooms: out.rooms.map((r) => withRoomActions(r)) }) },
});

export const getRoomUseCase = defineUseCase({
  input: roomInput,
  output: humanRoomRecord,
  room: 'member',
  handler: (ctx, input) => ({ ...roomDto(ctx.core.db, roomById(ctx.core.db, input.room)), role: humanRoomOf(ctx).role, trust: trustMode(ctx.core.db, input.room, ctx.caller.ownerId) }),
  route: { method: 'GET', path: '/v1/rooms/:id', present: (room) => withRoomActions(room) },
});

/**
 * The room's humans and agents and its live instances. The tool counts each agent's live
 * instances; the route adds each agent's presence and lists the instances.
 */
export const listMembersUseCase = defineUseCase({
  input: listMembersInput,
  output: roomMembersRecord,
  room: 'member',
  handler: ({ core }, input) => roomMembers(core, { room: input.room }),
  tool: {
    name: 'list_members',
    title: 'List room members',
    annotations: readOnly,
    scope: 'READ',
    description: 'The room\'s humans and agents with handles; use it to find whom to mention or assign.',
    output: listMembersOutput,
    present: (m) => ({
      humans: m.humans,
      agents: m.agents.map((a) => ({ ...a, live_instances: m.instances.filter((i) => i.plate === a.plate).length })),
    }),
  },
  route: {
    method: 'GET',
    path: '/v1/rooms/:id/members',
    present: (m, ctx) => ({
      ...withMemberActions({ humans: m.humans, agents: m.agents.map((a) => ({ ...a, presence: agentPresence(ctx.core, a.plate) })) }, { ownerId: ctx.caller.ownerId, role: humanRoomOf(ctx).role }),
      instances: m.instances,
    }),
  },
});

/** Any member adds its own agents; humans are added by a room admin (the service checks it, once the body says which). */
export const addMemberUseCase = defineUseCase({
  input: z.object({ room: roomIdArg, member: addMemberBody }),
  output: roomMembersRecord.omit({ instances: true }),
  room: 'member',
  handler: (ctx, input) => addMember(ctx.core, { room: input.room, ownerId: ctx.caller.ownerId, callerRole: humanRoomOf(ctx).role, member: input.member }),
  route: { method: 'POST', path: '/v1/rooms/:id/members', body: addMemberBody, input: ({ params, body }) => ({ room: params.id, member: body as z.output<typeof addMemberBody> }), status: 201 },
});

export const removeAgentUseCase = defineUseCase({
  input: z.object({ room: roomIdArg, plate: z.string() }),
  output: z.object({ removed: z.boolean() }),
  room: 'member',
  handler: (ctx, input) => removeRoomAgent(ctx.core, { room: input.room, ownerId: ctx.caller.ownerId, callerRole: humanRoomOf(ctx).role, plate: input.plate }),
  route: { method: 'DELETE', path: '/v1/rooms/:id/agents/:plate', input: ({ params }) => ({ room: params.id, plate: params.plate }) },
});

export const leaveRoomUseCase = defineUseCase({
  input: leaveRoomBody.extend({ room: roomIdArg }),
  output: z.object({ left: z.boolean(), room: z.string() }),
  room: 'member',
  handler: ({ core, caller }, input) => leave(core, { room: input.room, ownerId: caller.ownerId, newAdmin: input.new_admin }),
  route: { method: 'POST', path: '/v1/rooms/:id/leave', body: leaveRoomBody },
});

/** The caller's owner's Trust in the room: the human sets its own, an agent sets its owner's on the human's word. */
export const setTrustUseCase = defineUseCase({
  input: setRoomConsentInput,
  output: setTrustOutput,
  room: 'member',
  handler: ({ core, caller }, input) => setOwnerTrust(core, { room: input.room, ownerId: caller.ownerId, mode: input.mode }),
  tool: {
    name: 'set_room_consent',
    title: 'Set room consent',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Sets your owner\'s Trust in the room (trust_room lets other owners and their agents assign and wake you; blocked: neither can); use only on your human\'s word. Returns the mode.',
    output: setRoomConsentOutput,
    present: (set) => ({ room: set.room, mode: set.mode }),
  },
  route: { method: 'PUT', path: '/v1/rooms/:id/consent', body: trustBody },
});

/** Every owner's Trust in the room, for its members to see who lets whom assign and wake (the room's Trust panel). */
export const roomTrustUseCase = defineUseCase({
  input: roomInput,
  output: roomTrustRecord,
  room: 'member',
  handler: ({ core }, input) => roomTrust(core, input.room),
  route: { method: 'GET', path: '/v1/rooms/:id/trust' },
});

/**
 * Invitations (docs/needs-you.md "Invitations"): the rooms other owners added the caller to,
 * newest first (at most 100, `total` counts them all), and the caller's Accept or Decline.
 */
export const listInvitationsUseCase = defineUseCase({
  input: z.object({}),
  output: invitationList,
  handler: ({ core, caller }) => invitationsOf(core.db, caller.ownerId),
  route: { method: 'GET', path: '/v1/invitations' },
});

export const acceptInvitationUseCase = defineUseCase({
  input: roomInput,
  output: humanRoomRecord,
  room: 'member',
  handler: ({ core, caller }, input) => acceptInvitation(core, { room: input.room, ownerId: caller.ownerId }),
  route: { method: 'POST', path: '/v1/rooms/:id/invitation/accept', present: (room) => withRoomActions(room) },
});

export const declineInvitationUseCase = defineUseCase({
  input: roomInput,
  output: z.object({ declined: z.boolean(), room: z.string() }),
  room: 'member',
  handler: ({ core, caller }, input) => declineInvitation(core, { room: input.room, ownerId: caller.ownerId }),
  route: { method: 'POST', path: '/v1/rooms/:id/invitation/decline' },
});
