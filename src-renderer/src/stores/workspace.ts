import { enc, get, put, type ApiResult } from '../api';
import type { Workspace } from '../types';
import { createRoomResource } from './room-resource';

export interface WorkspaceEdit {
  local_path: string | null;
  repo_url: string | null;
  repo_branch: string | null;
  /** Only sent when the human types a replacement; the current token is never read back. */
  git_token?: string | null;
}

interface WorkspaceActions {
  save: (roomId: string, w: WorkspaceEdit) => Promise<ApiResult<Workspace>>;
}

/** A room's workspace settings (GET /v1/rooms/:id/workspace: the masked workspace itself). */
export const useWorkspace = createRoomResource<Workspace, WorkspaceActions>({
  name: 'workspace',
  request: (roomId) => get<Workspace>(`/v1/rooms/${enc(roomId)}/workspace`),
  refreshOn: ['workspace.changed'],
  extend: ({ get: getState }) => ({
    save: async (roomId, w) => {
      const r = await put<Workspace>(`/v1/rooms/${enc(roomId)}/workspace`, w);
      if (r.ok) await getState().load(roomId);
      return r;
    },
  }),
});
