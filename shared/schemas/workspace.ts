import { z } from 'zod';

/**
 * A room's workspace as the window reads and sets it (GET and PUT /v1/rooms/:id/workspace,
 * shared/contracts/workspace.ts), declared once here; shared/api-types.ts derives the UI's type
 * from it (types only).
 */
export const workspaceRecord = z.object({
  room: z.string(),
  /** Whether a workspace is set at all. */
  configured: z.boolean(),
  /** A non-admin sees that a workspace is configured, not its details (docs/security.md). */
  details_hidden: z.boolean(),
  local_path: z.string().nullable(),
  repo_url: z.string().nullable(),
  repo_branch: z.string().nullable(),
  /** Masked: the token is never read back, only replaced or removed. */
  git_token: z.string().nullable(),
  git_token_set: z.boolean(),
  updated_at: z.string().nullable(),
});

/** A string sets the field, null clears it, absent keeps it. */
const field = (max: number) => z.string().max(max).nullable().optional();

/** PUT /v1/rooms/:id/workspace: the fields to change (workspace/store.ts checks the rest). */
export const workspaceBody = z.object({ local_path: field(4096), repo_url: field(2048), repo_branch: field(255), git_token: field(4096) }).strict();
