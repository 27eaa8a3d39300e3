import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { maskedWorkspace, setWorkspace } from './store.js';

const field = (max: number) => z.string().max(max).nullable().optional();

export const workspaceRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/workspace',
    handler: ({ core, owner, params }) => maskedWorkspace(core, owner.owner_id, params.id!),
  },
  {
    method: 'PUT',
    path: '/v1/rooms/:id/workspace',
    handler: ({ core, owner, params, body }) => {
      const u = parseWith(
        z.object({ local_path: field(4096), repo_url: field(2048), repo_branch: field(255), git_token: field(4096) }).strict(),
        body,
      );
      return setWorkspace(core, owner.owner_id, params.id!, u);
    },
  },
];
