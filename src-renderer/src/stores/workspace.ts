import { create } from 'zustand';
import { enc, get, put, type ApiError, type ApiResult } from '../api';
import type { Workspace } from '../types';

export interface WorkspaceEdit {
  local_path: string | null;
  repo_url: string | null;
  repo_branch: string | null;
  /** Only sent when the human types a replacement; the current token is never read back. */
  git_token?: string | null;
}

interface WorkspaceState {
  rooms: Record<string, { data?: Workspace; status: 'loading' | 'ready' | 'error'; error?: ApiError }>;
  load: (roomId: string) => Promise<void>;
  save: (roomId: string, w: WorkspaceEdit) => Promise<ApiResult<Workspace>>;
}

export const useWorkspace = create<WorkspaceState>((set, getState) => ({
  rooms: {},
  load: async (roomId) => {
    if (!getState().rooms[roomId]) set((s) => ({ rooms: { ...s.rooms, [roomId]: { status: 'loading' } } }));
    const r = await get<Workspace | { workspace: Workspace }>(`/v1/rooms/${enc(roomId)}/workspace`);
    set((s) => ({
      rooms: {
        ...s.rooms,
        [roomId]: r.ok ? { status: 'ready', data: 'workspace' in r.data ? r.data.workspace : r.data } : { status: 'error', error: r.error },
      },
    }));
  },
  save: async (roomId, w) => {
    const r = await put<Workspace>(`/v1/rooms/${enc(roomId)}/workspace`, w);
    if (r.ok) await getState().load(roomId);
    return r;
  },
}));
