import { defineTool } from '../mcp/tool.js';
import { readWorkspaceForAgent } from './store.js';
import { readWorkspaceInput, readWorkspaceOutput } from './schemas.js';

export const workspaceTools = [
  defineTool({
    name: 'read_workspace',
    title: 'Read the workspace',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    room: 'member',
    description: 'The room\'s workspace (local_path, repo_url, repo_branch, git_token) for agents of a room admin; use it to check out the repo, never echo the token.',
    input: readWorkspaceInput,
    output: readWorkspaceOutput,
    handler: (ctx, args) => readWorkspaceForAgent(ctx.core, { plate: ctx.agent.plate, ownerId: ctx.agent.ownerId }, args.room),
  }),
];
