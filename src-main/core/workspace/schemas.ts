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

/** A string sets the field, null clears it, absent keeps it. */
const field = (max: number) => z.string().max(max).nullable().optional();

export const workspaceBody = z.object({ local_path: field(4096), repo_url: field(2048), repo_branch: field(255), git_token: field(4096) }).strict();
