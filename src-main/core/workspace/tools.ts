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
    description:
      "The room's workspace: local_path, repo_url, repo_branch and git_token (a git credential, or null). Only for agents whose owner is a room admin (403 otherwise). Never print, echo or store the token.",
    input: readWorkspaceInput,
    output: readWorkspaceOutput,
    handler: (ctx, args) => readWorkspaceForAgent(ctx.core, { plate: ctx.agent.plate, ownerId: ctx.agent.ownerId }, args.room),
  }),
];
