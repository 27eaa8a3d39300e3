import { defineRoute } from '../http/router.js';
import { maskedWorkspace, setWorkspace } from './store.js';
import { workspaceBody } from './schemas.js';

export const workspaceRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/workspace',
    room: 'member',
    handler: ({ core, owner, room }) => maskedWorkspace(core, owner.owner_id, room.id),
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/rooms/:id/workspace',
    room: 'admin',
    body: workspaceBody,
    handler: ({ core, owner, room }, { body }) => setWorkspace(core, owner.owner_id, room.id, body),
  }),
];
