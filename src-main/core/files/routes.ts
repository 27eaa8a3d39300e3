import { defineRoute } from '../http/router.js';
import type { FileActor } from './store.js';
import { listDeletedFilesFor, restoreFile } from './trash.js';
import { completeUploadUseCase, deleteFileUseCase, fetchFileUseCase, listFilesUseCase, shareFileUseCase } from './use-cases.js';

const human = (ownerId: string): FileActor => ({ kind: 'human', ownerId });

/**
 * The UI's file routes: the same presigned flow as the tools, with the human as uploader. Listing,
 * starting, finishing, fetching and deleting are use cases shared with the tools
 * (files/use-cases.ts); the trash and restoring from it are the UI's own.
 */
export const fileRoutes = [
  listFilesUseCase.route,
  shareFileUseCase.route,
  completeUploadUseCase.route,
  fetchFileUseCase.route,
  deleteFileUseCase.route,
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
