import type { ApiResult } from '../api';
import { client } from '../client';
import type { DeletedFile, DeletedFileList, DownloadLink, FilePage, RestoredFile, RoomFile } from '../types';
import { createRoomResource } from './room-resource';

export interface Upload {
  id: string;
  roomId: string;
  filename: string;
  loaded: number;
  total: number;
  phase: 'hashing' | 'uploading' | 'completing' | 'done' | 'failed';
  error?: string;
}

interface FilesActions {
  uploads: Upload[];
  upload: (roomId: string, file: File) => Promise<void>;
  download: (roomId: string, fileId: string) => Promise<ApiResult<DownloadLink>>;
  remove: (roomId: string, fileId: string) => Promise<ApiResult<unknown>>;
  dismiss: (id: string) => void;
}

async function sha256Hex(file: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** PUT the bytes with XMLHttpRequest: fetch cannot report upload progress. */
function putWithProgress(url: string, file: File, contentType: string, onProgress: (loaded: number) => void): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new Error('network error during upload'));
    xhr.send(file);
  });
}

/** A room's files (the first 500 paths: the list is paged, docs/files.md) and this tab's uploads. */
export const useFiles = createRoomResource<RoomFile[], FilesActions, FilePage>({
  name: 'files',
  request: (roomId) => client.files.list({ params: { id: roomId }, query: { limit: 500 } }),
  accept: (page) => page.files,
  refreshOn: ['files.changed'],
  extend: ({ set, get: getState }) => {
    const patch = (id: string, p: Partial<Upload>) => set((s) => ({ uploads: s.uploads.map((u) => (u.id === id ? { ...u, ...p } : u)) }));
    return {
      uploads: [],
      upload: async (roomId, file) => {
        const id = crypto.randomUUID();
        const contentType = file.type || 'application/octet-stream';
        set((s) => ({ uploads: [...s.uploads, { id, roomId, filename: file.name, loaded: 0, total: file.size, phase: 'hashing' }] }));
        try {
          const sha256 = await sha256Hex(file);
          const start = await client.files.upload({
            params: { id: roomId },
            body: { filename: file.name, content_type: contentType, size_bytes: file.size, sha256 },
          });
          if (!start.ok) return patch(id, { phase: 'failed', error: start.error.message });
          patch(id, { phase: 'uploading' });
          const put = await putWithProgress(start.data.upload_url, file, contentType, (loaded) => patch(id, { loaded }));
          if (put.status < 200 || put.status >= 300) {
            let msg = `upload refused (HTTP ${put.status})`;
            try {
              msg = (JSON.parse(put.text) as { error?: { message?: string } }).error?.message ?? msg;
            } catch {
              // not JSON
            }
            return patch(id, { phase: 'failed', error: msg });
          }
          patch(id, { phase: 'completing', loaded: file.size });
          const done = await client.files.complete({ params: { id: roomId, fileId: start.data.file_id }, body: {} });
          if (!done.ok) return patch(id, { phase: 'failed', error: done.error.message });
          patch(id, { phase: 'done' });
          void getState().load(roomId);
        } catch (err) {
          patch(id, { phase: 'failed', error: (err as Error).message });
        }
      },
      download: (roomId, fileId) => client.files.download({ params: { id: roomId, fileId } }),
      remove: async (roomId, fileId) => {
        const r = await client.files.remove({ params: { id: roomId, fileId } });
        if (r.ok) void Promise.all([getState().load(roomId), useDeletedFiles.getState().load(roomId)]);
        return r;
      },
      dismiss: (id) => set((s) => ({ uploads: s.uploads.filter((u) => u.id !== id) })),
    };
  },
});

interface DeletedFilesActions {
  restore: (roomId: string, fileId: string) => Promise<ApiResult<RestoredFile>>;
}

/** Files deleted in a room that can still be restored (docs/security.md, item 7). */
export const useDeletedFiles = createRoomResource<DeletedFile[], DeletedFilesActions, DeletedFileList>({
  name: 'deleted files',
  request: (roomId) => client.files.deleted({ params: { id: roomId } }),
  accept: (r) => r.files,
  refreshOn: ['files.changed'],
  extend: ({ get: getState }) => ({
    restore: async (roomId, fileId) => {
      const r = await client.files.restore({ params: { id: roomId, fileId } });
      await Promise.all([getState().load(roomId), ...(r.ok ? [useFiles.getState().load(roomId)] : [])]);
      return r;
    },
  }),
});
