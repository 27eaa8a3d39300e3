import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { withTaskActions } from '../tasks/rules.js';
import { listReviews, mergeTask, pushTask, submitReview, taskChanges } from './service.js';

/**
 * Review's use cases (docs/review.md), humans' alone: each acts on one task of the room `:id`
 * (the service refuses a task of another room as not found), with its wire face in
 * shared/contracts/review.ts. Git runs behind core.ports.worktrees, so most wait on it.
 */

/** What the task's branch changed against its merge base, its worktree's uncommitted changes included. */
export const taskChangesUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.review.changes },
  handler: ({ core, caller }, { params }) => taskChanges(core, { owner: caller.owner, room: params.id, taskId: params.taskId }),
});

/** A done task's branch merged into its base branch in the workspace folder; the record with the caller's acts. */
export const mergeTaskUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.review.merge },
  handler: async ({ core, caller }, { params, body }) => {
    const rec = await mergeTask(core, { owner: caller.owner, room: params.id, taskId: params.taskId, strategy: body.strategy ?? 'merge', deleteBranch: body.delete_branch ?? false });
    return withTaskActions(core.db, rec.room, caller.ownerId, [rec])[0]!;
  },
});

/** A review sent: stored, and its message to the assignee posted (201). */
export const submitReviewUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.review.submit },
  handler: ({ core, caller }, { params, body }) => submitReview(core, { owner: caller.owner, room: params.id, taskId: params.taskId, ...body }),
});

/** The task's reviews, oldest first. */
export const listReviewsUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.review.list },
  handler: ({ core, caller }, { params }) => listReviews(core, { owner: caller.owner, room: params.id, taskId: params.taskId }),
});

/** The task's branch pushed to the workspace's remote. */
export const pushTaskUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.review.push },
  handler: ({ core, caller }, { params }) => pushTask(core, { owner: caller.owner, room: params.id, taskId: params.taskId }),
});
