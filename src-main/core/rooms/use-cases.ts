import { z } from 'zod';
import { agentPresence } from '../core.js';
import { defineUseCase, type UseCaseRoom } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { trustSet } from '../../../shared/contracts/rooms.js';
import { humanRoomRecord, roomMembersRecord } from '../../../shared/schemas/rooms.js';
import { acceptInvitation, declineInvitation, invitationsOf } from './invitations.js';
import { roomById, roomDto, roomsOfAgent, trustMode } from './store.js';
import { withMemberActions, withRoomActions } from './rules.js';
import { addMember, leave, openRoom, removeRoomAgent, roomMembers, roomsOfHuman, roomTrust, setOwnerTrust } from './service.js';
import { listMembersInput, listMembersOutput, listRoomsOutput, setRoomConsentInput, setRoomConsentOutput } from './schemas.js';

/**
 * The room use cases, each declared once (usecase/define.ts), their routes from their contracts
 * (shared/contracts/rooms.ts): rooms/tools.ts and rooms/routes.ts (and tasks/tools.ts for
 * set_room_consent) list the tools and routes they yield, in their places.
 */

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The checked room of a human caller: route use cases with `room:` always have it. */
function humanRoomOf(ctx: { room?: UseCaseRoom }) {
  if (!ctx.room?.role) throw new Error('a human room use case runs behind the room check');
  return { id: ctx.room.id, role: ctx.room.role };
}

export const createRoomUseCase = defineUseCase({
  route: { contract: contracts.rooms.create },
  handler: ({ core, caller }, { body }) => withRoomActions(openRoom(core, { ownerId: caller.ownerId, name: body.name })),
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
  route: { contract: contracts.rooms.list, present: (out) => ({ rooms: out.rooms.map((r) => withRoomActions(r)) }) },
});

export const getRoomUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.read },
  handler: (ctx, { params }) =>
    withRoomActions({ ...roomDto(ctx.core.db, roomById(ctx.core.db, params.id)), role: humanRoomOf(ctx).role, trust: trustMode(ctx.core.db, params.id, ctx.caller.ownerId) }),
});

/**
 * The room's humans and agents and its live instances. The tool counts each agent's live
 * instances; the route adds each agent's presence and what the caller may do with each member.
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
    contract: contracts.rooms.members,
    present: (m, ctx) => ({
      ...withMemberActions({ humans: m.humans, agents: m.agents.map((a) => ({ ...a, presence: agentPresence(ctx.core, a.plate) })) }, { ownerId: ctx.caller.ownerId, role: humanRoomOf(ctx).role }),
      instances: m.instances,
    }),
  },
});

/** Any member adds its own agents; humans are added by a room admin (the service checks it, once the body says which). */
export const addMemberUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.addMember },
  handler: (ctx, { params, body }) => addMember(ctx.core, { room: params.id, ownerId: ctx.caller.ownerId, callerRole: humanRoomOf(ctx).role, member: body }),
});

export const removeAgentUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.removeAgent },
  handler: (ctx, { params }) => removeRoomAgent(ctx.core, { room: params.id, ownerId: ctx.caller.ownerId, callerRole: humanRoomOf(ctx).role, plate: params.plate }),
});

export const leaveRoomUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.leave },
  handler: ({ core, caller }, { params, body }) => leave(core, { room: params.id, ownerId: caller.ownerId, newAdmin: body.new_admin }),
});

/** The caller's owner's Trust in the room: the human sets its own, an agent sets its owner's on the human's word. */
export const setTrustUseCase = defineUseCase({
  input: setRoomConsentInput,
  output: trustSet,
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
  route: { contract: contracts.rooms.setTrust },
});

/** Every owner's Trust in the room, for its members to see who lets whom assign and wake (the room's Trust panel). */
export const roomTrustUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.trust },
  handler: ({ core }, { params }) => roomTrust(core, params.id),
});

/**
 * Invitations (docs/needs-you.md "Invitations"): the rooms other owners added the caller to,
 * newest first (at most 100, `total` counts them all), and the caller's Accept or Decline.
 */
export const listInvitationsUseCase = defineUseCase({
  route: { contract: contracts.rooms.invitations },
  handler: ({ core, caller }) => invitationsOf(core.db, caller.ownerId),
});

export const acceptInvitationUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.acceptInvitation },
  handler: ({ core, caller }, { params }) => withRoomActions(acceptInvitation(core, { room: params.id, ownerId: caller.ownerId })),
});

export const declineInvitationUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.rooms.declineInvitation },
  handler: ({ core, caller }, { params }) => declineInvitation(core, { room: params.id, ownerId: caller.ownerId }),
});
