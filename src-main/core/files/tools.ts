import { defineTool, type ToolContext } from '../mcp/tool.js';
import { invalid } from '../errors/app-error.js';
import type { FileActor } from './store.js';
import { INLINE_LIMIT, readInline, writeInline, type ByteRange } from './service.js';
import { completeUploadUseCase, deleteFileUseCase, fetchFileUseCase, listFilesUseCase, shareFileUseCase } from './use-cases.js';
import {
  readFileInput,
  readFileOutput,
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
  // One use case with GET /v1/rooms/:id/files (files/use-cases.ts).
  listFilesUseCase.tool,
  // One use case with DELETE /v1/rooms/:id/files/:fileId (files/use-cases.ts), as are share, complete and fetch.
  deleteFileUseCase.tool,
  shareFileUseCase.tool,
  completeUploadUseCase.tool,
  fetchFileUseCase.tool,
];
