import type { z } from 'zod';
import { defineUseCase, type Caller, agentCaller } from '../usecase/define.js';
import { invalid } from '../errors/app-error.js';
import { contracts } from '../../../shared/contracts/index.js';
import type { listFilesQuery, versionQuery } from '../../../shared/schemas/files.js';
import { completeUpload, deleteFile, fetchFile, INLINE_LIMIT, listFilesForHumans, listFilesPage, readInline, shareFile, writeInline, type ByteRange } from './service.js';
import type { FileActor } from './store.js';
import { listDeletedFilesFor, restoreFile } from './trash.js';
import {
  completeUploadOutput,
  deleteFileInput,
  deleteFileOutput,
  fetchFileOutput,
  fileVersionInput,
  listFilesInput,
  listFilesOutput,
  readFileInput,
  readFileOutput,
  shareFileInput,
  shareFileOutput,
  writeFileInput,
  writeFileOutput,
} from './schemas.js';

/**
 * The file use cases, each declared once (usecase/define.ts): files/tools.ts and files/routes.ts
 * list the tools and routes they yield, in their places; each route's wire face is its contract
 * (shared/contracts/files.ts). The bytes themselves go through the presigned URLs (files/http.ts),
 * not through these.
 */

/** The agent calling a tool-only use case (the registry runs it for agents alone). */
function agentOf(caller: Caller): FileActor {
  const a = agentCaller(caller);
  return { kind: 'agent', plate: a.plate, ownerId: a.ownerId };
}

function toRange(r: { start: number; end?: number } | string | undefined): ByteRange | undefined {
  if (r === undefined) return undefined;
  if (typeof r !== 'string') return r;
  const [a, b] = r.replace(/^bytes=/, '').split('-');
  return { start: Number(a), end: b ? Number(b) : undefined };
}

// ---- the agents' inline reads and writes -----------------------------------------------------

/** Writes a small file inline (a new version when the path exists). */
export const writeFileUseCase = defineUseCase({
  input: writeFileInput,
  output: writeFileOutput,
  room: 'member',
  handler: ({ core, caller }, a) =>
    writeInline(core, agentOf(caller), {
      roomId: a.room,
      path: a.path,
      content: a.content,
      encoding: a.encoding ?? 'utf-8',
      contentType: a.content_type,
      idempotencyKey: a.idempotency_key,
    }),
  tool: {
    name: 'write_file',
    title: 'Write a file',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'UPLOAD',
    description: `Writes a room file of at most ${INLINE_LIMIT / 1024} KiB inline (a new version if the path exists) and returns its entry; use share_file for larger files.`,
  },
});

/** Reads a file inline, whole or a byte range, by path or id. */
export const readFileUseCase = defineUseCase({
  input: readFileInput,
  output: readFileOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    if (a.path === undefined && a.file_id === undefined) throw invalid('give path or file_id');
    return readInline(core, agentOf(caller), {
      roomId: a.room,
      path: a.path,
      fileId: a.file_id,
      version: a.version,
      range: toRange(a.range),
    });
  },
  tool: {
    name: 'read_file',
    title: 'Read a file',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'DOWNLOAD',
    description: `Returns a room file's content (utf-8 or base64) by path or file_id, whole or a byte range up to ${INLINE_LIMIT / 1024} KiB; use fetch_file for larger reads.`,
  },
});

// ---- shared by agents and humans -------------------------------------------------------------

/**
 * A page of the room's files. The view follows the caller: an agent's shows each file's current
 * version and the tool to read it with; the window's shows every version with its quarantine
 * state and what the owner may do (files/rules.ts).
 */
export const listFilesUseCase = defineUseCase({
  input: listFilesInput,
  output: listFilesOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    const page = { prefix: a.prefix, cursor: a.cursor, limit: a.limit };
    return caller.kind === 'human' ? listFilesForHumans(core, caller.ownerId, a.room, page) : listFilesPage(core, caller, a.room, page);
  },
  tool: {
    name: 'list_files',
    title: 'List files',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'A page of the room\'s files with version, kind and read_with (the tool to read each); use it to find what to read.',
  },
  route: {
    contract: contracts.files.list,
    input: ({ params, query }) => ({ ...(query as z.output<typeof listFilesQuery>), room: params.id }),
  },
});

/**
 * Starts a presigned upload. The route's body is its own (`shareFileBody`: the window may leave
 * `content_type` out), the rules after it are the service's, the same for both callers.
 */
export const shareFileUseCase = defineUseCase({
  input: shareFileInput,
  output: shareFileOutput,
  room: 'member',
  handler: ({ core, caller }, a) =>
    shareFile(core, caller, {
      roomId: a.room,
      filename: a.filename,
      contentType: a.content_type,
      sizeBytes: a.size_bytes,
      sha256: a.sha256,
      idempotencyKey: a.idempotency_key,
    }),
  tool: {
    name: 'share_file',
    title: 'Start a file upload',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'UPLOAD',
    description: 'Starts an upload of up to 2 GiB and returns file_id and upload_url: PUT the bytes, then call complete_file_upload.',
  },
  route: {
    contract: contracts.files.upload,
    // content_type may be absent on /v1: the service then takes application/octet-stream.
    input: ({ params, body }) => ({ ...(body as z.output<typeof shareFileInput>), room: params.id }),
    status: (r) => (r.replayed ? 200 : 201),
  },
});

/**
 * Releases an uploaded version once its size and sha256 match. `room: 'record'`: the tool names
 * the file alone; on /v1 the file must be of the room `:id` (the service's lookup).
 */
export const completeUploadUseCase = defineUseCase({
  input: fileVersionInput,
  output: completeUploadOutput,
  room: 'record',
  handler: ({ core, caller, room }, a) => completeUpload(core, caller, { fileId: a.file_id, version: a.version, roomId: room?.id }),
  tool: {
    name: 'complete_file_upload',
    title: 'Finish a file upload',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'UPLOAD',
    description: 'Releases a share_file upload after the PUT if size and sha256 match, else it stays quarantined; returns the file entry.',
  },
  route: {
    contract: contracts.files.complete,
    input: ({ params, body }) => ({ file_id: params.fileId, version: (body as { version?: number }).version }),
  },
});

/** A download link (15 minutes) for a released version of any size. `room: 'record'`, as above. */
export const fetchFileUseCase = defineUseCase({
  input: fileVersionInput,
  output: fetchFileOutput,
  room: 'record',
  handler: ({ core, caller, room }, a) => fetchFile(core, caller, { fileId: a.file_id, version: a.version, roomId: room?.id }),
  tool: {
    name: 'fetch_file',
    title: 'Get a download link',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'DOWNLOAD',
    description: 'Returns a download_url (15 minutes) for a released file of any size; use it when read_file\'s 256 KiB is not enough.',
  },
  route: {
    contract: contracts.files.download,
    input: ({ params, query }) => ({ file_id: params.fileId, version: (query as z.output<typeof versionQuery>).v }),
  },
});

/** Soft-deletes a file with all its versions (restorable for a while). The tool names it by path or id, the route by id. */
export const deleteFileUseCase = defineUseCase({
  input: deleteFileInput,
  output: deleteFileOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    if (a.path === undefined && a.file_id === undefined) throw invalid('give path or file_id');
    return deleteFile(core, caller, { roomId: a.room, path: a.path, fileId: a.file_id });
  },
  tool: {
    name: 'delete_file',
    title: 'Delete a file',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'UPLOAD',
    description: 'Soft-deletes a room file with all its versions and returns what was deleted; use it only for files your owner may delete.',
  },
  route: { contract: contracts.files.remove, input: ({ params }) => ({ room: params.id, file_id: params.fileId }) },
});

// ---- the trash: the window's alone (docs/security.md, item 7) --------------------------------

/** The room's deleted files still restorable, each with whether this owner may restore it now. */
export const listDeletedFilesUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.files.deleted },
  handler: ({ core, caller }, { params }) => ({ files: listDeletedFilesFor(core.db, params.id, caller.ownerId) }),
});

/** Brings a deleted file back under its old id and path (CONFLICT when the path was reused meanwhile). */
export const restoreFileUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.files.restore },
  handler: ({ core, caller }, { params }) => restoreFile(core, { kind: 'human', ownerId: caller.ownerId }, params.id, params.fileId),
});
