import { defineRoute, Status } from '../http/router.js';
import type { FileActor } from './store.js';
import { listDeletedFilesFor, restoreFile } from './trash.js';
import { completeUpload, deleteFile, fetchFile, listFilesForHumans, shareFile } from './service.js';
import { completeUploadBody, listFilesQuery, shareFileBody, versionQuery } from './schemas.js';

const human = (ownerId: string): FileActor => ({ kind: 'human', ownerId });

/** The UI's file routes: the same presigned flow as the tools, with the human as uploader. */
export const fileRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/files',
    room: 'member',
    query: listFilesQuery,
    handler: ({ core, owner, room }, { query }) => listFilesForHumans(core, owner.owner_id, room.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/files/uploads',
    room: 'member',
    body: shareFileBody,
    handler: ({ core, owner, room }, { body }) => {
      const r = shareFile(core, human(owner.owner_id), {
        roomId: room.id,
        filename: body.filename,
        contentType: body.content_type,
        sizeBytes: body.size_bytes,
        sha256: body.sha256,
        idempotencyKey: body.idempotency_key,
      });
      return new Status(r.replayed ? 200 : 201, r);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/files/:fileId/complete',
    room: 'member',
    body: completeUploadBody,
    handler: ({ core, owner, room, params }, { body }) =>
      completeUpload(core, human(owner.owner_id), { fileId: params.fileId, version: body.version, roomId: room.id }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/files/:fileId/download',
    room: 'member',
    query: versionQuery,
    handler: ({ core, owner, room, params }, { query }) =>
      fetchFile(core, human(owner.owner_id), { fileId: params.fileId, version: query.v, roomId: room.id }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/rooms/:id/files/:fileId',
    room: 'member',
    handler: ({ core, owner, room, params }) => deleteFile(core, human(owner.owner_id), { roomId: room.id, fileId: params.fileId }),
  }),
  defineRoute({
    // Soft-deleted files still restorable (docs/security.md, item 7).
    method: 'GET',
    path: '/v1/rooms/:id/deleted-files',
    room: 'member',
    handler: ({ core, owner, room }) => ({ files: listDeletedFilesFor(core.db, room.id, owner.owner_id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/deleted-files/:fileId/restore',
    room: 'member',
    handler: ({ core, owner, room, params }) => restoreFile(core, human(owner.owner_id), room.id, params.fileId),
  }),
];
