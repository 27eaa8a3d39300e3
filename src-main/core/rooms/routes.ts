import { defineRoute, Status, type Route } from '../http/router.js';
import { roomById, roomDto, trustMode } from './store.js';
import { addMember, leave, openRoom, removeRoomAgent, roomMembers, roomsOfHuman, roomTrust, setOwnerTrust } from './service.js';
import { addMemberBody, createRoomBody, leaveRoomBody, trustBody } from './schemas.js';

export { roomTrust } from './service.js';

export const roomRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/rooms',
    body: createRoomBody,
    handler: ({ core, owner }, { body }) => new Status(201, openRoom(core, { ownerId: owner.owner_id, name: body.name })),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms',
    handler: ({ core, owner }) => ({ rooms: roomsOfHuman(core, { ownerId: owner.owner_id }) }),
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
    handler: ({ core, room }) => roomMembers(core, { room: room.id }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/members',
    // Any member adds its own agents; humans are added by a room admin (the service checks it, once the body says which).
    room: 'member',
    body: addMemberBody,
    handler: ({ core, owner, room }, { body }) =>
      new Status(201, addMember(core, { room: room.id, ownerId: owner.owner_id, callerRole: room.role, member: body })),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/rooms/:id/agents/:plate',
    room: 'member',
    handler: ({ core, owner, room, params }) => removeRoomAgent(core, { room: room.id, ownerId: owner.owner_id, callerRole: room.role, plate: params.plate }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/leave',
    room: 'member',
    body: leaveRoomBody,
    handler: ({ core, owner, room }, { body }) => leave(core, { room: room.id, ownerId: owner.owner_id, newAdmin: body.new_admin }),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/rooms/:id/consent',
    room: 'member',
    body: trustBody,
    handler: ({ core, owner, room }, { body }) => setOwnerTrust(core, { room: room.id, ownerId: owner.owner_id, mode: body.mode }),
  }),
  defineRoute({
    // Every owner's Trust in the room, for its members to see who lets whom assign and wake (the room's Trust panel).
    method: 'GET',
    path: '/v1/rooms/:id/trust',
    room: 'member',
    handler: ({ core, room }) => roomTrust(core, room.id),
  }),
];
