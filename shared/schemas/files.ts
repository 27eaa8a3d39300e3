import { z } from 'zod';

/**
 * The file records and fields, declared once: the file tools' inputs and results and the /v1 file
 * endpoints (shared/contracts/files.ts) use these schemas, and shared/api-types.ts derives the UI's
 * types from them, importing types only (docs/architecture.md, "Contracts").
 */

// ---- fields: the tools and the window's requests take the same ones ------------------------

/** The longest page of files one call returns (files/service.ts clamps to it too). */
export const FILES_LIMIT_MAX = 500;

export const pathArg = z.string().min(1).max(4096).describe('Room path, e.g. notes/plan.md');
export const fileIdArg = z.string().min(1).max(200);
export const versionNumber = z.number().int().min(1);
export const versionArg = versionNumber.optional().describe('Default: the current version');
export const keyArg = z.string().min(1).max(200).optional();
export const contentTypeArg = z.string().max(200);
export const sizeBytesArg = z.number().int().min(0);
export const prefixArg = z.string().max(1024);
export const cursorArg = z.string().min(1).max(2000);
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

// ---- the window's requests (shared/contracts/files.ts) ----------------------------------

/** GET /v1/rooms/:id/files: a page by path prefix. */
export const listFilesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(FILES_LIMIT_MAX).optional(),
  cursor: cursorArg.optional(),
  prefix: prefixArg.optional(),
});

/** POST /v1/rooms/:id/files/uploads: share_file's fields, `content_type` optional (application/octet-stream then). */
export const shareFileBody = z.object({
  filename: pathArg,
  content_type: contentTypeArg.optional(),
  size_bytes: sizeBytesArg,
  sha256: z.string().regex(SHA256_HEX),
  idempotency_key: keyArg,
});

/** POST …/files/:fileId/complete: the version to release (default the newest). */
export const completeUploadBody = z.object({ version: versionNumber.optional() });

/** GET …/files/:fileId/download: `v`, the version (default the current one). */
export const versionQuery = z.object({ v: z.coerce.number().int().min(1).optional() });

// ---- records ------------------------------------------------------------------------------

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

/** Who wrote a version or deleted a file: an agent by its plate, or a human owner. */
const fileActor = z.union([z.object({ kind: z.literal('agent'), plate: z.string().nullable() }), z.object({ kind: z.literal('human'), owner_id: z.string() })]);

/** One version of a room's file as the window lists it, oldest first; a quarantined one says why. */
export const roomFileVersion = z.object({
  version: z.number().int(),
  kind: fileEntry.shape.kind,
  status: fileEntry.shape.status,
  quarantine_reason: z.string().nullable(),
  filename: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  uploaded_by: fileActor,
  created_at: z.string(),
  ready_at: z.string().nullable(),
});

/** A room's file as the window lists it (GET /v1/rooms/:id/files): its current version (else its newest), with every version. */
export const roomFileRecord = fileEntry.extend({ versions: z.array(roomFileVersion) });

/** GET /v1/rooms/:id/files: one page of the room's files, by path. */
export const filePageRecord = z.object({
  files: z.array(roomFileRecord),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});

/** delete_file and DELETE /v1/rooms/:id/files/:fileId: what left the room, and until when it can come back. */
export const deleteFileOutput = z.object({
  deleted: z.boolean(),
  file_id: z.string(),
  path: z.string(),
  versions_deleted: z.number().int(),
  restorable_until: z.string(),
});

/** A deleted file still restorable (GET /v1/rooms/:id/deleted-files → `{files}`): its path, how many versions, its newest version's size and type. */
export const deletedFileRecord = z.object({
  file_id: z.string(),
  room: z.string(),
  path: z.string(),
  versions: z.number(),
  size_bytes: z.number(),
  content_type: z.string().nullable(),
  deleted_by: fileActor,
  deleted_at: z.string(),
  restorable_until: z.string(),
});

/** POST /v1/rooms/:id/deleted-files/:fileId/restore: the file back under its old id and path, with its versions. */
export const restoredFile = z.object({ restored: z.boolean(), file_id: z.string(), path: z.string(), versions_restored: z.number().int() });
