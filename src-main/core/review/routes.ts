import { withTaskActions } from '../tasks/rules.js';
import { defineRoute, Status } from '../http/router.js';
import { listReviews, mergeTask, pushTask, submitReview, taskChanges } from './service.js';
import { mergeBody, pushBody, reviewBody } from './schemas.js';

/** The human API of review (docs/review.md): a task's changes, its merge and its push. */
export const reviewRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/changes',
    room: 'member',
    handler: ({ core, owner, params }) => taskChanges(core, { owner, room: params.id, taskId: params.taskId }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/merge',
    room: 'member',
    body: mergeBody,
    handler: async ({ core, owner, params }, { body }) => {
      const rec = await mergeTask(core, { owner, room: params.id, taskId: params.taskId, strategy: body.strategy ?? 'merge', deleteBranch: body.delete_branch ?? false });
      return withTaskActions(core.db, rec.room, owner.owner_id, [rec])[0];
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/reviews',
    room: 'member',
    body: reviewBody,
    handler: async ({ core, owner, params }, { body }) => new Status(201, await submitReview(core, { owner, room: params.id, taskId: params.taskId, ...body })),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/reviews',
    room: 'member',
    handler: ({ core, owner, params }) => listReviews(core, { owner, room: params.id, taskId: params.taskId }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/push',
    room: 'member',
    body: pushBody,
    handler: ({ core, owner, params }) => pushTask(core, { owner, room: params.id, taskId: params.taskId }),
  }),
];
