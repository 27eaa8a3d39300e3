import type { ApiResult } from '../api';
import { client } from '../client';
import type { Workspace, WorkspaceEdit } from '../types';
import { createRoomResource } from './room-resource';

interface WorkspaceActions {
  save: (roomId: string, w: WorkspaceEdit) => Promise<ApiResult<Workspace>>;
}

/** A room's workspace settings (contracts.workspace.read: the masked workspace itself). */
export const useWorkspace = createRoomResource<Workspace, WorkspaceActions>({
  name: 'workspace',
  request: (roomId) => client.workspace.read({ params: { id: roomId } }),
  refreshOn: ['workspace.changed'],
  extend: ({ get: getState }) => ({
    save: async (roomId, w) => {
      const r = await client.workspace.update({ params: { id: roomId }, body: w });
      if (r.ok) await getState().load(roomId);
      return r;
    },
  }),
});
