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
    description: `Writes a room file of at most ${INLINE_LIMIT / 1024} KiB inline (a new version if the path exists) and returns its entry; use share_file for larger files.`,
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
    description: `Returns a room file's content (utf-8 or base64) by path or file_id, whole or a byte range up to ${INLINE_LIMIT / 1024} KiB; use fetch_file for larger reads.`,
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
    description: 'A page of the room\'s files with version, kind and read_with (the tool to read each); use it to find what to read.',
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
    description: 'Soft-deletes a room file with all its versions and returns what was deleted; use it only for files your owner may delete.',
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
    description: 'Starts an upload of up to 2 GiB and returns file_id and upload_url: PUT the bytes, then call complete_file_upload.',
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
    description: 'Releases a share_file upload after the PUT if size and sha256 match, else it stays quarantined; returns the file entry.',
    input: fileVersionInput,
    output: completeUploadOutput,
    handler: (ctx, args) => completeUpload(ctx.core, actorOf(ctx), { fileId: args.file_id, version: args.version }),
  }),
  defineTool({
    name: 'fetch_file',
    title: 'Get a download link',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'DOWNLOAD',
    description: 'Returns a download_url (15 minutes) for a released file of any size; use it when read_file\'s 256 KiB is not enough.',
    input: fileVersionInput,
    output: fetchFileOutput,
    handler: (ctx, args) => fetchFile(ctx.core, actorOf(ctx), { fileId: args.file_id, version: args.version }),
  }),
];
