import { endpoint } from './contract.js';
import { workspaceBody, workspaceRecord } from '../schemas/workspace.js';

/** A room's workspace (docs/security.md): read by any member (details for admins), set by a room admin. */
export const workspace = {
  read: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/workspace',
    summary: "The room's workspace, its token masked; a non-admin sees only that one is configured.",
    output: workspaceRecord,
  }),
  update: endpoint({
    method: 'PUT',
    path: '/v1/rooms/:id/workspace',
    summary: "Sets the room's workspace (room admins): a string sets a field, null clears it, absent keeps it.",
    body: workspaceBody,
    output: workspaceRecord,
  }),
};
