import { z } from 'zod';
import { endpoint } from './contract.js';
import { humanTask } from './tasks.js';
import { pushResult, taskChanges } from '../schemas/tasks.js';
import { mergeBody, pushBody, reviewBody, reviewRecord } from '../schemas/review.js';

/** Review of a task's work (docs/review.md): what its branch changed, reviews, its merge and its push. */
export const review = {
  changes: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/changes',
    summary: 'What the task\'s branch changed against its base, uncommitted changes included.',
    output: taskChanges,
  }),
  merge: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/merge',
    summary: 'Merges a done task\'s branch into its base branch in the workspace folder.',
    body: mergeBody,
    output: humanTask,
  }),
  submit: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/reviews',
    summary: 'Sends a review of the task\'s work: a message to its assignee, and a follow-up task when changes are asked of a done task.',
    body: reviewBody,
    status: 201,
    output: reviewRecord,
  }),
  list: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/reviews',
    summary: 'The task\'s reviews, oldest first.',
    output: z.object({ reviews: z.array(reviewRecord) }),
  }),
  push: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/push',
    summary: 'Pushes the task\'s branch to the workspace\'s remote.',
    body: pushBody,
    output: pushResult,
  }),
};
