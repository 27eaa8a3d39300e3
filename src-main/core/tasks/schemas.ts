import { z } from 'zod';
import { TASK_STATUSES } from './transitions.js';
import { BOARD_LIMIT_MAX } from './board.js';
import { taskRecord } from '../../../shared/schemas/tasks.js';

// ---- arguments: the tools' inputs and the routes' bodies and queries share their fields ----

const roomArg = z.string().min(1).max(200);
const taskIdArg = z.string().min(1).max(200);
const text = (max: number) => z.string().max(max);
const titleArg = z.string().min(1).max(200);
const assigneeArg = z.string().min(1).max(120);
const orderArg = z.number().int().min(-1_000_000).max(1_000_000);
const dependsOnArg = z.array(z.string().min(1).max(200)).max(100).describe('Task ids to finish first');
const artifactsArg = z.array(z.string().min(1).max(2000)).max(100).describe('Paths, URLs or commit ids produced');
const instanceIdArg = z.string().min(1).max(200);
/** A statuses filter names these; "archived" adds archived tasks. */
const boardStatus = z.enum([...TASK_STATUSES, 'archived']);
const laneArg = z.string().min(1).max(120);
const cursorArg = z.string().min(1).max(2000);
const detailArg = z.enum(['summary', 'full']);

/** create_task (with its room) and POST /v1/rooms/:id/tasks (room from the path): one task, the same fields and limits. */
const createTaskFields = {
  title: titleArg,
  definition_of_done: text(4000).min(1).describe('A checkable condition'),
  assignee: assigneeArg.describe('Agent handle @name(owner), or plate'),
  detail: text(20_000).optional(),
  order: orderArg.optional().describe('Position in the lane; lower first'),
  depends_on: dependsOnArg.optional(),
  idempotency_key: z.string().min(1).max(200).optional().describe('Retry key: no second task'),
};
export const createTaskInput = z.object({ room: roomArg, ...createTaskFields });
export const createTaskBody = z.object(createTaskFields);

/** update_task (with its task_id) and PATCH /v1/rooms/:id/tasks/:taskId: what may change on an unfinished task. */
const updateTaskFields = {
  title: titleArg.optional(),
  detail: text(20_000).nullable().optional(),
  definition_of_done: text(4000).min(1).optional(),
  order: orderArg.nullable().optional(),
  depends_on: dependsOnArg.optional(),
};
export const updateTaskInput = z.object({ task_id: taskIdArg, ...updateTaskFields });
/** Strict: a field the board's panel may not edit (assignee, status) is refused, not ignored. */
export const updateTaskBody = z.object(updateTaskFields).strict();

export const reassignTaskBody = z.object({ assignee: assigneeArg });
/** POST …/tasks/:taskId/retry: the copy goes to the same agent unless another is named. */
export const retryTaskBody = z.strictObject({ assignee: assigneeArg.optional() });

export const claimTaskInput = z.object({
  task_id: taskIdArg,
  instance_id: instanceIdArg.optional().describe('Lease holder; default: this MCP session'),
});

export const renewLeaseInput = z.object({
  task_id: taskIdArg,
  instance_id: instanceIdArg.optional().describe('The instance_id you claimed with, if any'),
});

export const taskIdInput = z.object({ task_id: taskIdArg });

export const setStatusInput = z.object({
  task_id: taskIdArg,
  // Listed as the three it moves to; `done` and the rest are still accepted, to be answered CONFLICT ("use complete_task").
  status: z.enum(TASK_STATUSES).meta({ listed: { type: 'string', enum: ['todo', 'blocked', 'failed'] } }),
  reason: text(4000).optional().describe('Why; recorded for blocked and failed'),
  result_ref: text(2000).optional(),
  summary: text(20_000).optional(),
  artifacts: artifactsArg.optional(),
  next: text(4000).optional(),
});

export const completeTaskInput = z.object({
  task_id: taskIdArg,
  status: z.enum(['done', 'blocked', 'failed']),
  summary: text(20_000).optional(),
  handoff_notes: text(64 * 1024).optional().describe('Required for done; goes to dependants'),
  artifacts: artifactsArg.optional(),
  reason: text(4000).optional(),
  result_ref: text(2000).optional(),
  next: text(4000).optional(),
  ack_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe('Inbox mention_ids to clear'),
});

export const readBoardInput = z.object({
  room: roomArg,
  assignee: assigneeArg.optional(),
  // Listed as a list; one status alone is accepted too.
  status: z
    .union([boardStatus, z.array(boardStatus).max(7)])
    .optional()
    .meta({ listed: { type: 'array', items: { type: 'string', enum: [...TASK_STATUSES, 'archived'] } } })
    .describe('"archived" adds archived tasks'),
  limit: z.number().int().min(0).max(BOARD_LIMIT_MAX).optional(),
  lane: laneArg.optional().describe('More of one lane: its plate or "done", with its cursor'),
  cursor: cursorArg.optional(),
  detail: detailArg.optional(),
});

/** GET /v1/rooms/:id/board: read_board's filters as query parameters; `status` is a comma-separated list. */
export const boardQuery = z.object({
  assignee: assigneeArg.optional(),
  status: z
    .string()
    .max(200)
    .optional()
    .transform((s) => (s ? s.split(',') : undefined))
    .pipe(z.array(boardStatus).optional()),
  limit: z.coerce.number().int().min(0).max(BOARD_LIMIT_MAX).optional(),
  lane: laneArg.optional(),
  cursor: cursorArg.optional(),
  detail: detailArg.optional(),
});

/** A task's history (GET …/tasks/:taskId/history): the events after `after` (a seq), at most `limit` (default 50, at most 200). */
export const taskHistoryInput = z.object({
  task_id: taskIdArg,
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export const taskHistoryQuery = taskHistoryInput.omit({ task_id: true });

/** The legacy consent tools take what old clients sent and act on nothing. */
export const acceptTaskInput = z.object({ task_id: z.string().max(200).optional() });
export const rejectTaskInput = z.object({ task_id: z.string().max(200).optional(), reason: z.string().max(4000).optional() });
export const pendingConsentsInput = z.object({ room: z.string().max(200).optional() });

/** assign_task is retired: it takes nothing and never succeeds, so an empty result is all it could return. */
export const retiredInput = z.object({});
export const retiredOutput = z.object({});

// ---- results (the records are in shared/schemas/tasks.ts) ----

export { boardOutput, taskHistoryPage, taskRecord } from '../../../shared/schemas/tasks.js';

export const createTaskOutput = taskRecord.extend({ replayed: z.boolean().optional() });
export const claimTaskOutput = taskRecord.extend({ claimed: z.boolean() });
export const completeTaskOutput = taskRecord.extend({ unblocked: z.array(z.string()) });

/** The legacy consent tools: nothing is ever pending. */
export const legacyConsentOutput = z.object({ acted: z.boolean(), pending: z.number().int(), message: z.string() });
export const pendingConsentsOutput = z.object({ pending: z.array(z.never()), message: z.string() });
