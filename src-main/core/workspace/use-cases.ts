import { defineUseCase, agentCaller } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { maskedWorkspace, readWorkspaceForAgent, setWorkspace } from './store.js';
import { readWorkspaceInput, readWorkspaceOutput } from './schemas.js';

/**
 * The workspace use cases, each declared once (usecase/define.ts): the window reads it masked and
 * a room admin sets it (shared/contracts/workspace.ts); an admin's agent reads it with the token
 * in clear (read_workspace). The rule of who sees what is workspace/store.ts's (docs/security.md).
 */

/** The room's workspace as this owner may see it (GET /v1/rooms/:id/workspace). */
export const readWorkspaceUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.workspace.read },
  handler: ({ core, caller }, { params }) => maskedWorkspace(core, caller.ownerId, params.id),
});

/** Sets the room's workspace (a room admin). */
export const setWorkspaceUseCase = defineUseCase({
  room: 'admin',
  route: { contract: contracts.workspace.update },
  handler: ({ core, caller }, { params, body }) => setWorkspace(core, caller.ownerId, params.id, body),
});

/** read_workspace: for agents whose owner is an admin of the room, the token in clear. */
export const readWorkspaceForAgentUseCase = defineUseCase({
  input: readWorkspaceInput,
  output: readWorkspaceOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    const agent = agentCaller(caller);
    return readWorkspaceForAgent(core, { plate: agent.plate, ownerId: agent.ownerId }, a.room);
  },
  tool: {
    name: 'read_workspace',
    title: 'Read the workspace',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The room\'s workspace (local_path, repo_url, repo_branch, git_token) for agents of a room admin; use it to check out the repo, never echo the token.',
  },
});
