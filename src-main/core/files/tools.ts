import { defineTool, type ToolContext } from '../mcp/tool.js';
import { invalid } from '../errors/app-error.js';
import type { FileActor } from './store.js';
import { completeUpload, deleteFile, fetchFile, INLINE_LIMIT, listFilesPage, readInline, shareFile, writeInline, type ByteRange } from './service.js';
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

function toRange(r: { start: number; end?: number } | string | undefined): ByteRange | undefined {
  if (r === undefined) return undefined;
  if (typeof r !== 'string') return r;
  const [a, b] = r.replace(/^bytes=/, '').split('-');
  return { start: Number(a), end: b ? Number(b) : undefined };
}

const actorOf = (ctx: ToolContext): FileActor => ({ kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId });

export const fileTools = [
  defineTool({
    name: 'write_file',
    title: 'Write a file',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'UPLOAD',
    room: 'member',
    description: `Write a small file into the room, inline (at most ${INLINE_LIMIT / 1024} KiB decoded). Writing an existing path adds a new version; older versions stay readable. content is text (encoding "utf-8", the default) or base64 (encoding "base64"). Larger or binary files: use share_file instead. A retry with the same idempotency_key for the same path does not write twice. Returns the file entry (file_id, path, version, sha256).`,
    input: writeFileInput,
    output: writeFileOutput,
    handler: (ctx, args) =>
      writeInline(ctx.core, actorOf(ctx), {
        roomId: args.room,
        path: args.path,
        content: args.content,
        encoding: args.encoding ?? 'utf-8',
        contentType: args.content_type,
        idempotencyKey: args.idempotency_key,
      }),
  }),
  defineTool({
    name: 'read_file',
    title: 'Read a file',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'DOWNLOAD',
    room: 'member',
    description: `Read a room file inline by path or file_id: the current version, or an older one with version, whole or a byte range (at most ${INLINE_LIMIT / 1024} KiB per call). Text comes back with encoding "utf-8", other bytes as base64. For large files use fetch_file.`,
    input: readFileInput,
    output: readFileOutput,
    handler: (ctx, args) => {
      if (args.path === undefined && args.file_id === undefined) throw invalid('give path or file_id');
      return readInline(ctx.core, actorOf(ctx), {
        roomId: args.room,
        path: args.path,
        fileId: args.file_id,
        version: args.version,
        range: toRange(args.range),
      });
    },
  }),
  defineTool({
    name: 'list_files',
    title: 'List files',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    room: 'member',
    description:
      'List the room\'s files by path (inline and presigned), optionally under a prefix, a page at a time (pass next_cursor as cursor). Each entry has its current version, kind ("inline" or "presigned") and read_with: the tool to read it with (read_file or fetch_file). Your own uploads that are still quarantined are listed with status "quarantined". Use it to find what to read. Returns {files, next_cursor, total}.',
    input: listFilesInput,
    output: listFilesOutput,
    handler: (ctx, args) => listFilesPage(ctx.core, actorOf(ctx), args.room, { prefix: args.prefix, cursor: args.cursor, limit: args.limit }),
  }),
  defineTool({
    name: 'delete_file',
    title: 'Delete a file',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'UPLOAD',
    room: 'member',
    description:
      "Delete a room file by path or file_id, with all its versions, once nobody needs it. Only your owner's own files, or any file if your owner is a room admin. The delete is soft: a human can restore it until restorable_until. Returns {deleted, file_id, path, versions_deleted, restorable_until}.",
    input: deleteFileInput,
    output: deleteFileOutput,
    handler: (ctx, args) => {
      if (args.path === undefined && args.file_id === undefined) throw invalid('give path or file_id');
      return deleteFile(ctx.core, actorOf(ctx), { roomId: args.room, path: args.path, fileId: args.file_id });
    },
  }),
  defineTool({
    name: 'share_file',
    title: 'Start a file upload',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'UPLOAD',
    room: 'member',
    description:
      'Start a large or binary upload (up to 2 GiB). Declare filename (a room path), content_type, size_bytes and the sha256 (hex) of the bytes. Returns file_id and upload_url (valid 15 minutes): PUT the exact bytes to it, then call complete_file_upload(file_id). Until then the file is quarantined and nobody can read it. Sharing an existing path adds a new version.',
    input: shareFileInput,
    output: shareFileOutput,
    handler: (ctx, args) =>
      shareFile(ctx.core, actorOf(ctx), {
        roomId: args.room,
        filename: args.filename,
        contentType: args.content_type,
        sizeBytes: args.size_bytes,
        sha256: args.sha256,
        idempotencyKey: args.idempotency_key,
      }),
  }),
  defineTool({
    name: 'complete_file_upload',
    title: 'Finish a file upload',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'UPLOAD',
    description:
      'Finish a share_file upload after the PUT: the file is released only if the received bytes match the declared size and sha256; otherwise it stays quarantined and the error says why. Calling it again returns the first result. version picks one of several uploads of the same file (default your newest).',
    input: fileVersionInput,
    output: completeUploadOutput,
    handler: (ctx, args) => completeUpload(ctx.core, actorOf(ctx), { fileId: args.file_id, version: args.version }),
  }),
  defineTool({
    name: 'fetch_file',
    title: 'Get a download link',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'DOWNLOAD',
    description:
      'A download_url (valid 15 minutes) for a released file, any size: GET it, with a Range header for parts. Default the current version.',
    input: fileVersionInput,
    output: fetchFileOutput,
    handler: (ctx, args) => fetchFile(ctx.core, actorOf(ctx), { fileId: args.file_id, version: args.version }),
  }),
];
