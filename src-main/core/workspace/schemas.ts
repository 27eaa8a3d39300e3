import { z } from 'zod';
import { roomIdArg } from '../rooms/tools.js';

export const readWorkspaceInput = z.object({ room: roomIdArg });

/** read_workspace's result: the workspace with the token in clear (agents of room admins only). */
export const readWorkspaceOutput = z.object({
  room: z.string(),
  local_path: z.string().nullable(),
  repo_url: z.string().nullable(),
  repo_branch: z.string().nullable(),
  git_token: z.string().nullable(),
  note: z.string(),
});
