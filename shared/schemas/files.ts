import { z } from 'zod';

/**
 * The file records, declared once: the file tools' results and the /v1 file routes' responses
 * use these schemas, and shared/api-types.ts derives the UI's types from them (`z.output`),
 * importing types only (docs/architecture.md, "Use cases").
 */

/** A file as the tools show it: one version of one path (files/service.ts `FileEntry`). */
export const fileEntry = z.object({
  path: z.string(),
  file_id: z.string(),
  version: z.number().int(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  kind: z.enum(['inline', 'presigned']),
  status: z.enum(['ready', 'quarantined']),
  read_with: z.enum(['read_file', 'fetch_file']),
  updated_at: z.string(),
});

/** A result an idempotency key can replay says so. */
const replayed = z.boolean().optional();

/** share_file and POST /v1/rooms/:id/files/uploads: the new version, quarantined until its bytes are PUT to `upload_url`. */
export const shareFileOutput = fileEntry.extend({
  upload_url: z.string(),
  upload_method: z.string(),
  expires_at: z.string(),
  next: z.string(),
  replayed,
});

/** complete_file_upload and POST …/files/:fileId/complete: the released version and its room. */
export const completeUploadOutput = fileEntry.extend({ room: z.string(), replayed });

/** fetch_file and GET …/files/:fileId/download: a short-lived link to the bytes. */
export const fetchFileOutput = fileEntry.extend({ download_url: z.string(), expires_at: z.string() });

/** A room's file as the window lists it (GET /v1/rooms/:id/files), with its versions. */
export const roomFileRecord = z.object({
  file_id: z.string(),
  path: z.string().optional(),
  filename: z.string().optional(),
  version: z.number().optional(),
  versions: z
    .array(
      z.object({
        version: z.number(),
        file_id: z.string().optional(),
        size_bytes: z.number().optional(),
        sha256: z.string().optional(),
        created_at: z.string().optional(),
        status: z.string().optional(),
      }),
    )
    .optional(),
  content_type: z.string().optional(),
  size_bytes: z.number().optional(),
  sha256: z.string().optional(),
  status: z.string().optional(),
  quarantined: z.boolean().optional(),
  kind: z.string().optional(),
  created_at: z.string().optional(),
  uploaded_by: z.unknown().optional(),
});

/** GET /v1/rooms/:id/files: one page of the room's files, by path. */
export const filePageRecord = z.object({
  files: z.array(roomFileRecord),
  next_cursor: z.string().nullable(),
  total: z.number(),
});

/** A deleted file still restorable (GET /v1/rooms/:id/deleted-files → `{files}`). */
export const deletedFileRecord = z.object({
  file_id: z.string(),
  path: z.string(),
  versions: z.number(),
  deleted_at: z.string(),
  restorable_until: z.string(),
});
