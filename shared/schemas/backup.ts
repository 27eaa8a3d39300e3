import { z } from 'zod';

/**
 * The backup records of the human API (GET/POST /v1/backups, the primary owner only), declared
 * once here; shared/api-types.ts derives the UI's types from them (`z.output`, types only).
 */

/** A backup of the home (GET /v1/backups `last`, POST /v1/backups). */
export const backupSummary = z.object({
  path: z.string(),
  kind: z.enum(['manual', 'auto']),
  created_at: z.string(),
  blobs: z.number(),
  db_bytes: z.number(),
  blob_bytes: z.number(),
});

/** GET /v1/backups */
export const backupStatus = z.object({
  last: backupSummary.nullable(),
  running: z.object({ kind: z.string(), started_at: z.string() }).nullable(),
  last_error: z.object({ at: z.string(), message: z.string() }).nullable(),
  settings: z.object({ auto: z.boolean(), every_hours: z.number(), keep: z.number() }),
  next_auto_at: z.string().nullable(),
});
