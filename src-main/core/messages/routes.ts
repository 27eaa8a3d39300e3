import { defineRoute, Status, type Route } from '../http/router.js';
import { readHistory, sendMessage } from './service.js';
import { historyQuery, postMessageBody } from './schemas.js';

/** A room's messages for humans: the history and posting (the agents' side is messages/tools.ts). */
export const messageRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/messages',
    room: 'member',
    query: historyQuery,
    handler: ({ core, room }, { query }) => readHistory(core.db, room.id, query.limit, query.before_seq),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/messages',
    room: 'member',
    body: postMessageBody,
    handler: ({ core, owner, room }, { body }) =>
      new Status(
        201,
        sendMessage(core, { kind: 'human', ownerId: owner.owner_id }, {
          roomId: room.id,
          body: body.body,
          mentionTargets: body.mention_targets,
          parentId: body.parent_id,
          idempotencyKey: body.idempotency_key,
        }),
      ),
  }),
];
