import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import { readHistory, sendMessage, PAGE_MAX } from './service.js';

/** A room's messages for humans: the history and posting (the agents' side is messages/tools.ts). */
export const messageRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/messages',
    handler: ({ core, owner, params, url }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const q = parseWith(
        z.object({
          limit: z.coerce.number().int().min(1).max(PAGE_MAX).optional(),
          before_seq: z.coerce.number().int().min(1).optional(),
        }),
        Object.fromEntries(url.searchParams),
      );
      return readHistory(core.db, params.id!, q.limit, q.before_seq);
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/messages',
    handler: ({ core, owner, params, body }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const input = parseWith(
        z.object({
          // No schema maximum: sendMessage measures bytes, so any oversize body is PAYLOAD_TOO_LARGE (413).
          body: z.string(),
          mention_targets: z.array(z.string().min(1).max(120)).max(50).optional(),
          parent_id: z.string().min(1).max(200).optional(),
          idempotency_key: z.string().min(1).max(200).optional(),
        }),
        body,
      );
      const msg = sendMessage(core, { kind: 'human', ownerId: owner.owner_id }, {
        roomId: params.id!,
        body: input.body,
        mentionTargets: input.mention_targets,
        parentId: input.parent_id,
        idempotencyKey: input.idempotency_key,
      });
      return new Status(201, msg);
    },
  },
];
