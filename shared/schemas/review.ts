import { z } from 'zod';

/**
 * Reviews of a task's work (docs/review.md): the bodies the window sends to review, merge and
 * push a task's branch, and the review record the server stores and answers
 * (src-main/core/review/service.ts `ReviewRecord` is its `z.output`).
 */

/** POST /v1/rooms/:id/tasks/:taskId/merge (docs/review.md). */
export const mergeBody = z.strictObject({
  strategy: z.enum(['merge', 'squash']).optional(),
  /** Delete the task's branch once it is merged. */
  delete_branch: z.boolean().optional(),
});

/** POST /v1/rooms/:id/tasks/:taskId/push: nothing to say; the remote is the workspace's. */
export const pushBody = z.strictObject({});

export const reviewVerdict = z.enum(['comment', 'request_changes', 'approve']);

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** One line comment: a path of the task's changes, a line of its new side, what to change. */
const lineComment = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(1024)
    .refine((p) => !CONTROL.test(p) && !p.includes('\n'), 'must be a repository path, without control characters'),
  line: z.number().int().min(1).max(10_000_000),
  body: z.string().min(1).max(8000),
});

/** POST /v1/rooms/:id/tasks/:taskId/reviews (docs/review.md). */
export const reviewBody = z
  .strictObject({
    verdict: reviewVerdict,
    body: z.string().max(16_000).optional(),
    comments: z.array(lineComment).max(100).optional(),
  })
  .refine((b) => b.verdict === 'approve' || (b.body?.trim() ?? '') !== '' || (b.comments?.length ?? 0) > 0, 'a comment or a request for changes needs a body or at least one line comment');

/**
 * A review as stored: who sent it, the verdict, the body, each line comment with the line it is
 * about as the worktree had it (`quoted`, null when it could not be read), the room message that
 * asked the assignee, and the follow-up task a request for changes on a done task made.
 */
export const reviewRecord = z.object({
  review_id: z.string(),
  task_id: z.string(),
  room: z.string(),
  owner_id: z.string(),
  verdict: reviewVerdict,
  body: z.string().nullable(),
  comments: z.array(z.object({ path: z.string(), line: z.number().int(), body: z.string(), quoted: z.string().nullable() })),
  message_id: z.string().nullable(),
  follow_up_task_id: z.string().nullable(),
  created_at: z.string(),
});
