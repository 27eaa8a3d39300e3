import { z } from 'zod';

/**
 * A room's workspace as the window reads it (GET /v1/rooms/:id/workspace), declared once here;
 * shared/api-types.ts derives the UI's type from it (`z.output`, types only).
 */
export const workspaceRecord = z.object({
  local_path: z.string().nullable(),
  repo_url: z.string().nullable(),
  repo_branch: z.string().nullable(),
  git_token: z.string().nullable(),
  git_token_set: z.boolean().optional(),
  configured: z.boolean().optional(),
  /** A non-admin sees that a workspace is configured, not its details (docs/security.md). */
  details_hidden: z.boolean().optional(),
});
