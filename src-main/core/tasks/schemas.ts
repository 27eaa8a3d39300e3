import { z } from 'zod';
import { TASK_STATUSES } from './transitions.js';
import { BOARD_LIMIT_MAX } from './board.js';

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
  instance_id: instanceIdArg.optional().describe('The instance that will hold the lease; defaults to this MCP session'),
});

export const renewLeaseInput = z.object({
  task_id: taskIdArg,
  instance_id: instanceIdArg.optional().describe('The holding instance, if you claimed with an explicit instance_id'),
});

export const taskIdInput = z.object({ task_id: taskIdArg });

export const setStatusInput = z.object({
  task_id: taskIdArg,
  status: z.enum(TASK_STATUSES).describe('todo, blocked or failed'),
  reason: text(4000).optional().describe('Why; recorded for blocked and failed'),
  result_ref: text(2000).optional(),
  summary: text(20_000).optional(),
  artifacts: artifactsArg.optional(),
  next: text(4000).optional().describe('What should happen next'),
});

export const completeTaskInput = z.object({
  task_id: taskIdArg,
  status: z.enum(['done', 'blocked', 'failed']),
  summary: text(20_000).optional(),
  handoff_notes: text(64 * 1024).optional().describe('Required for done; goes to dependants'),
  artifacts: artifactsArg.optional(),
  reason: text(4000).optional(),
  result_ref: text(2000).optional().describe('Where the result is'),
  next: text(4000).optional(),
  ack_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe('Inbox mention_ids to clear'),
});

export const readBoardInput = z.object({
  room: roomArg,
  assignee: assigneeArg.optional(),
  status: z.union([boardStatus, z.array(boardStatus).max(7)]).optional().describe('One status or a list; "archived" includes archived tasks'),
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

/** The legacy consent tools take what old clients sent and act on nothing. */
export const acceptTaskInput = z.object({ task_id: z.string().max(200).optional() });
export const rejectTaskInput = z.object({ task_id: z.string().max(200).optional(), reason: z.string().max(4000).optional() });
export const pendingConsentsInput = z.object({ room: z.string().max(200).optional() });

/** assign_task is retired: it takes nothing and never succeeds, so an empty result is all it could return. */
export const retiredInput = z.object({});
export const retiredOutput = z.object({});

// ---- results ----

const consentState = z.enum(['auto', 'accepted']);

/** The full task record (store.ts `TaskRecord`): what every task tool returns. */
export const taskRecord = z.object({
  task_id: z.string(),
  room: z.string(),
  title: z.string(),
  detail: z.string().nullable(),
  definition_of_done: z.string(),
  assignee: z.string(),
  assignee_handle: z.string(),
  order: z.number().int().nullable(),
  depends_on: z.array(z.string()),
  status: z.enum(TASK_STATUSES),
  consent_state: consentState,
  blocked_by: z.array(z.string()),
  lease: z.object({ instance_id: z.string().nullable(), renewed_at: z.string().nullable(), stale: z.boolean() }),
  result_ref: z.string().nullable(),
  reason: z.string().nullable(),
  summary: z.string().nullable(),
  artifacts: z.array(z.string()),
  next: z.string().nullable(),
  handoff_notes: z.string().nullable(),
  archived: z.boolean(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  retry_of: z.string().optional(),
});

/** A compact board task (shared/api-types.ts `TaskSummary`); the lease names its live holder. */
const taskSummary = z.object({
  task_id: z.string(),
  room: z.string(),
  title: z.string(),
  assignee: z.string(),
  assignee_handle: z.string(),
  status: z.enum(TASK_STATUSES),
  order: z.number().int().nullable(),
  depends_on: z.array(z.string()),
  blocked_by: z.array(z.string()),
  lease: z.object({ instance_id: z.string(), handle: z.string().nullable(), stale: z.boolean() }).nullable(),
  consent_state: z.string(),
  updated_at: z.string(),
});

/**
 * A board page's task as the UI reads it (shared/api-types.ts `BoardTask`): the compact fields
 * always, the rest of the record with detail "full"; the lease names its live holder (compact) or
 * when it was renewed (full). One object rather than a union of the two: half the bytes on the
 * wire, where every tool's output schema shares one budget (ergonomics.test.ts).
 */
const boardTask = taskRecord
  .partial()
  .extend(taskSummary.shape)
  .extend({
    lease: z
      .object({ instance_id: z.string().nullable(), handle: z.string().nullable().optional(), renewed_at: z.string().nullable().optional(), stale: z.boolean() })
      .nullable(),
  });

export const createTaskOutput = taskRecord.extend({ replayed: z.boolean().optional() });
export const claimTaskOutput = taskRecord.extend({ claimed: z.boolean() });
export const completeTaskOutput = taskRecord.extend({ unblocked: z.array(z.string()) });

export const boardOutput = z.object({
  lanes: z.array(
    z.object({ assignee: z.string(), handle: z.string(), tasks: z.array(boardTask), total: z.number().int(), next_cursor: z.string().nullable() }),
  ),
  done: z.array(boardTask),
  done_total: z.number().int(),
  done_next_cursor: z.string().nullable(),
  context_version: z.number().int(),
});

/** The legacy consent tools: nothing is ever pending. */
export const legacyConsentOutput = z.object({ acted: z.boolean(), pending: z.number().int(), message: z.string() });
export const pendingConsentsOutput = z.object({ pending: z.array(z.never()), message: z.string() });
