import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import type { FileActor } from './store.js';
import { listDeletedFiles, restoreFile } from './trash.js';
import { completeUpload, deleteFile, fetchFile, FILES_LIMIT_MAX, listFilesForHumans, shareFile } from './service.js';

const human = (ownerId: string): FileActor => ({ kind: 'human', ownerId });
const versionQuery = z.object({ v: z.coerce.number().int().min(1).optional() });

/** The UI's file routes: the same presigned flow as the tools, with the human as uploader. */
export const fileRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/files',
    handler: ({ core, owner, params, url }) => {
      const q = parseWith(
        z.object({
          limit: z.coerce.number().int().min(1).max(FILES_LIMIT_MAX).optional(),
          cursor: z.string().min(1).max(2000).optional(),
          prefix: z.string().max(1024).optional(),
        }),
        Object.fromEntries(url.searchParams),
      );
      return listFilesForHumans(core, owner.owner_id, params.id!, q);
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/files/uploads',
    handler: ({ core, owner, params, body }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(
        z.object({
          filename: z.string().min(1).max(4096),
          content_type: z.string().max(200).optional(),
          size_bytes: z.number().int().min(0),
          sha256: z.string().regex(/^[0-9a-fA-F]{64}$/),
          idempotency_key: z.string().min(1).max(200).optional(),
        }),
        body,
      );
      const r = shareFile(core, human(owner.owner_id), {
        roomId: params.id!,
        filename: input.filename,
        contentType: input.content_type,
        sizeBytes: input.size_bytes,
        sha256: input.sha256,
        idempotencyKey: input.idempotency_key,
      });
      return new Status(r.replayed ? 200 : 201, r);
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/files/:fileId/complete',
    handler: ({ core, owner, params, body }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(z.object({ version: z.number().int().min(1).optional() }), body);
      return completeUpload(core, human(owner.owner_id), { fileId: params.fileId!, version: input.version, roomId: params.id! });
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id/files/:fileId/download',
    handler: ({ core, owner, params, url }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const q = parseWith(versionQuery, Object.fromEntries(url.searchParams));
      return fetchFile(core, human(owner.owner_id), { fileId: params.fileId!, version: q.v, roomId: params.id! });
    },
  },
  {
    method: 'DELETE',
    path: '/v1/rooms/:id/files/:fileId',
    handler: ({ core, owner, params }) => deleteFile(core, human(owner.owner_id), { roomId: params.id!, fileId: params.fileId! }),
  },
  {
    // Soft-deleted files still restorable (docs/security.md, item 7).
    method: 'GET',
    path: '/v1/rooms/:id/deleted-files',
    handler: ({ core, owner, params }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      return { files: listDeletedFiles(core.db, params.id!) };
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/deleted-files/:fileId/restore',
    handler: ({ core, owner, params }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      return restoreFile(core, human(owner.owner_id), params.id!, params.fileId!);
    },
  },
];
