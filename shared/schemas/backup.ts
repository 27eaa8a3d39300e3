import { z } from 'zod';

/**
 * The backup records of the human API (GET/POST /v1/backups, the primary owner only), declared
 * once here; the contract (shared/contracts/backup.ts) answers them, shared/api-types.ts derives
 * the UI's types from them (`z.output`, types only) and the server's `BackupResult` is one.
 */

/** How far a backup is (the stream of POST /v1/backups, the running backup of GET /v1/backups). */
export const backupProgress = z.object({
  phase: z.enum(['database', 'verify', 'blobs', 'files', 'done']),
  done: z.number(),
  total: z.number(),
});

/** A verified backup of the home, as its manifest records it (POST /v1/backups answers it). */
export const backupRecord = z.object({
  format: z.literal('agent-rooms-backup'),
  version: z.literal(1),
  path: z.string(),
  kind: z.enum(['manual', 'auto']),
  /** `server`: taken by the running server; `offline`: by the command line on a stopped home. */
  source: z.enum(['server', 'offline']),
  home: z.string(),
  created_at: z.string(),
  duration_ms: z.number(),
  db_bytes: z.number(),
  schema_version: z.number(),
  counts: z.record(z.string(), z.number()),
  blobs: z.number(),
  blob_bytes: z.number(),
  verified: z.object({ integrity_check: z.literal('ok'), blobs_sha256: z.number() }),
});

/** A backup of the home as the window shows it (GET /v1/backups `last`, POST /v1/backups). */
export const backupSummary = backupRecord.pick({ path: true, kind: true, created_at: true, blobs: true, db_bytes: true, blob_bytes: true });

/** GET /v1/backups */
export const backupStatus = z.object({
  last: backupSummary.nullable(),
  running: z.object({ kind: z.string(), started_at: z.string() }).nullable(),
  last_error: z.object({ at: z.string(), message: z.string() }).nullable(),
  settings: z.object({ auto: z.boolean(), every_hours: z.number(), keep: z.number() }),
  next_auto_at: z.string().nullable(),
});
