import { z } from 'zod';
import { roomIdArg } from '../rooms/tools.js';
import {
  completeUploadOutput,
  contentTypeArg,
  cursorArg,
  deleteFileOutput,
  fetchFileOutput,
  fileEntry,
  fileIdArg,
  FILES_LIMIT_MAX,
  keyArg,
  pathArg,
  prefixArg,
  SHA256_HEX,
  shareFileOutput,
  sizeBytesArg,
  versionArg,
} from '../../../shared/schemas/files.js';

// ---- fields: the tools and the UI's requests take the same ones (shared/schemas/files.ts) ----

const rangeArg = z
  .union([
    z.object({
      start: z.number().int().min(0),
      end: z.number().int().min(0).optional(),
    }),
    z.string().regex(/^(bytes=)?\d+-\d*$/, 'a range such as "0-1023" or "bytes=4096-"'),
  ])
  .optional()
  // Listed as the object; "start-end" is accepted too.
  .meta({ listed: { type: 'object', properties: { start: { type: 'integer' }, end: { type: 'integer' } }, required: ['start'] } })
  .describe('Bytes, end inclusive');

// ---- tool inputs ------------------------------------------------------------------------

export const writeFileInput = z.object({
  room: roomIdArg,
  path: pathArg,
  content: z.string(),
  encoding: z.enum(['utf-8', 'base64']).optional(),
  content_type: contentTypeArg.optional().describe('MIME type'),
  idempotency_key: keyArg,
});

export const readFileInput = z.object({
  room: roomIdArg,
  path: pathArg.optional(),
  file_id: fileIdArg.optional(),
  version: versionArg,
  range: rangeArg,
});

export const listFilesInput = z.object({
  room: roomIdArg,
  prefix: prefixArg.optional(),
  limit: z.number().int().min(1).max(FILES_LIMIT_MAX).optional(),
  cursor: cursorArg.optional(),
});

export const deleteFileInput = z.object({ room: roomIdArg, path: pathArg.optional(), file_id: fileIdArg.optional() });

export const shareFileInput = z.object({
  room: roomIdArg,
  filename: pathArg,
  content_type: contentTypeArg,
  size_bytes: sizeBytesArg,
  sha256: z.string().regex(SHA256_HEX, '64 hexadecimal characters'),
  idempotency_key: keyArg,
});

/** complete_file_upload and fetch_file: a file by id, a version optional. */
export const fileVersionInput = z.object({ file_id: fileIdArg, version: versionArg });

// The /v1 bodies and queries are the contracts' (shared/contracts/files.ts), built on the same fields.

// ---- results ----------------------------------------------------------------------------

// The records the UI reads too are in shared/schemas/files.ts (it derives its types from them).
export { completeUploadOutput, deleteFileOutput, fetchFileOutput, shareFileOutput };

/** A result an idempotency key can replay says so. */
const replayed = z.boolean().optional();

export const writeFileOutput = fileEntry.extend({ replayed });

export const readFileOutput = fileEntry.extend({
  encoding: z.enum(['utf-8', 'base64']),
  content: z.string(),
  range: z.object({ start: z.number().int(), end: z.number().int() }),
  partial: z.boolean(),
});

export const listFilesOutput = z.object({
  files: z.array(fileEntry),
  next_cursor: z.string().nullable(),
  total: z.number().int(),
});
