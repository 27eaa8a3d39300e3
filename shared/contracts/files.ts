import { z } from 'zod';
import { endpoint } from './contract.js';
import { withActions } from './acts.js';
import {
  completeUploadBody,
  completeUploadOutput,
  deletedFileRecord,
  deleteFileOutput,
  fetchFileOutput,
  filePageRecord,
  listFilesQuery,
  restoredFile,
  roomFileRecord,
  shareFileBody,
  shareFileOutput,
  versionQuery,
} from '../schemas/files.js';
import { DELETED_FILE_ACTIONS, FILE_ACTIONS } from '../acts.js';

/**
 * The file endpoints (docs/files.md): the room's files, the presigned upload and download, and the
 * trash. The bytes themselves go to and from the presigned URLs these answer (`upload_url`,
 * `download_url`, files/http.ts), outside the router.
 */

/** A room's file as the window lists it, with what the caller may do with it now. */
export const roomFile = withActions(roomFileRecord, FILE_ACTIONS);

/** A deleted file still restorable, with whether the caller may restore it now. */
export const deletedFile = withActions(deletedFileRecord, DELETED_FILE_ACTIONS);

export const files = {
  list: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/files',
    summary: "A page of the room's files by path, each with its versions.",
    query: listFilesQuery,
    output: filePageRecord.extend({ files: z.array(roomFile) }),
  }),
  upload: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/files/uploads',
    summary: 'Starts a presigned upload: PUT the bytes to upload_url, then complete it (200 when an idempotency key replays it).',
    body: shareFileBody,
    output: shareFileOutput,
    status: 201,
  }),
  complete: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/files/:fileId/complete',
    summary: 'Releases an uploaded version once its size and sha256 match.',
    body: completeUploadBody,
    output: completeUploadOutput,
  }),
  download: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/files/:fileId/download',
    summary: 'A download link (15 minutes) for a released version.',
    query: versionQuery,
    output: fetchFileOutput,
  }),
  remove: endpoint({
    method: 'DELETE',
    path: '/v1/rooms/:id/files/:fileId',
    summary: 'Soft-deletes a file with all its versions (restorable for a while).',
    output: deleteFileOutput,
  }),
  deleted: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/deleted-files',
    summary: "The room's deleted files still restorable, newest first.",
    output: z.object({ files: z.array(deletedFile) }),
  }),
  restore: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/deleted-files/:fileId/restore',
    summary: 'Brings a deleted file back with its versions, under its old id and path.',
    output: restoredFile,
  }),
};
