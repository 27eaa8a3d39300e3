import { z } from 'zod';
import { TASK_STATUSES } from '../task-statuses.js';

/**
 * The task records, declared once: the task tools' results and the /v1 task and board routes'
 * responses use these schemas, and shared/api-types.ts derives the UI's types from them
 * (`z.output`), importing types only (docs/architecture.md, "Use cases").
 */

/** The task statuses (shared/task-statuses.ts; tasks/transitions.ts holds the moves between them). */
export const taskStatus = z.enum(TASK_STATUSES);

export const consentState = z.enum(['auto', 'accepted']);

/** A task's git worktree (docs/worktrees.md): the folder, its branch, and the base it was made from. */
export const worktreeRecord = z.object({
  path: z.string(),
  branch: z.string(),
  base_branch: z.string(),
  base_commit: z.string(),
});

/** The full task record (tasks/store.ts `TaskRecord` is its `z.output`): what every task tool returns. */
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
  status: taskStatus,
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
  /** A retry (docs/tasks.md): the failed task it repeats. */
  retry_of: z.string().optional(),
  /** A follow-up (docs/review.md): the done task whose review asked for changes; it works on that task's branch. */
  follow_up_of: z.string().optional(),
  /**
   * Where runs do this task's work (docs/worktrees.md): its own git worktree on its own branch,
   * made from the recorded base the first time a run works on it; null with `worktree_reason`
   * when there is none (not made yet, the workspace is not a git repository, removed).
   */
  worktree: worktreeRecord.nullable(),
  worktree_reason: z.string().nullable(),
  /** Its branch was merged into its base branch (docs/review.md): the commit, when, the owner who merged it, and the branch it went into. */
  merged: z.object({ commit: z.string(), at: z.string(), by: z.string(), into: z.string() }).nullable(),
  /** /v1 only: other open tasks whose branches change the same files (docs/review.md "Overlaps"). */
  overlaps: z.array(z.object({ task_id: z.string(), title: z.string(), paths: z.array(z.string()) })).optional(),
});

/** A compact board task (tasks/board.ts `TaskSummary`); the lease names its live holder. */
export const taskSummary = z.object({
  task_id: z.string(),
  room: z.string(),
  title: z.string(),
  assignee: z.string(),
  assignee_handle: z.string(),
  status: taskStatus,
  order: z.number().int().nullable(),
  depends_on: z.array(z.string()),
  blocked_by: z.array(z.string()),
  lease: z.object({ instance_id: z.string(), handle: z.string().nullable(), stale: z.boolean() }).nullable(),
  consent_state: z.string(),
  updated_at: z.string(),
  /** Its branch landed in its base branch (docs/review.md); null before. */
  merged: z.object({ commit: z.string(), at: z.string(), by: z.string(), into: z.string() }).nullable(),
});

/**
 * A board page's task (shared/api-types.ts `BoardTask` adds its acts): the compact fields
 * always, the rest of the record with detail "full"; the lease names its live holder (compact) or
 * when it was renewed (full). One object rather than a union of the two: half the bytes on the
 * wire, where every tool's output schema shares one budget (ergonomics.test.ts).
 */
export const boardTask = taskRecord
  .partial()
  .extend(taskSummary.shape)
  .extend({
    lease: z
      .object({ instance_id: z.string().nullable(), handle: z.string().nullable().optional(), renewed_at: z.string().nullable().optional(), stale: z.boolean() })
      .nullable(),
  });

export const boardOutput = z.object({
  lanes: z.array(
    z.object({ assignee: z.string(), handle: z.string(), tasks: z.array(boardTask), total: z.number().int(), next_cursor: z.string().nullable() }),
  ),
  done: z.array(boardTask),
  done_total: z.number().int(),
  done_next_cursor: z.string().nullable(),
  context_version: z.number().int(),
});

/** One line of a changed file's diff (GET /v1/rooms/:id/tasks/:taskId/changes, docs/review.md). */
export const changedLine = z.object({ kind: z.enum(['context', 'add', 'del']), old: z.number().int().optional(), new: z.number().int().optional(), text: z.string() });

export const changedFile = z.object({
  path: z.string(),
  old_path: z.string().optional(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  additions: z.number().int(),
  deletions: z.number().int(),
  binary: z.boolean(),
  hunks: z.array(z.object({ header: z.string(), lines: z.array(changedLine) })),
});

/**
 * What a task's branch changed against its merge base with the base branch, its worktree's
 * uncommitted changes included; at most 300 files and 2 MB of diff text (`truncated`, with the
 * totals of all). Or, when there is nothing to diff, `{files: [], reason}`.
 */
export const taskChanges = z.union([
  z.object({
    base: z.object({ branch: z.string(), commit: z.string() }),
    head: z.object({ branch: z.string(), commit: z.string() }),
    uncommitted: z.boolean(),
    files: z.array(changedFile),
    truncated: z.boolean(),
    totals: z.object({ files: z.number().int(), additions: z.number().int(), deletions: z.number().int() }),
    reason: z.string().optional(),
    /** Reservations other agents hold on changed paths (shown beside the diff). */
    reservations: z
      .array(z.object({ path: z.string(), pattern: z.string(), plate: z.string(), handle: z.string(), exclusive: z.boolean(), task_id: z.string().nullable(), expires_at: z.string() }))
      .optional(),
  }),
  z.object({ files: z.tuple([]), reason: z.string() }),
]);

/** POST …/push: where the branch went, and a page to open a pull request from, when the host is known. */
export const pushResult = z.object({ remote: z.string(), branch: z.string(), compare_url: z.string().optional() });

/** The kinds of a task's recorded history (docs/tasks.md "History"). */
export const TASK_EVENT_KINDS = [
  'created',
  'edited',
  'claimed',
  'released',
  'lease_renewed',
  'lease_gone',
  'status_changed',
  'completed',
  'reassigned',
  'cancelled',
  'archived',
  'retried',
  'wake_queued',
  'wake_held',
  'wake_handled',
  'wake_failed',
  'reviewed',
  'merged',
] as const;

/** Who made a change: a human (owner id, their name as `handle`), an agent (plate, `@name(owner)` while it has one), or the server itself. */
export const taskEventActor = z.object({
  kind: z.enum(['human', 'agent', 'server']),
  id: z.string(),
  handle: z.string().optional(),
});

/**
 * One recorded change to a task, oldest first by `seq`. `from`/`to` are statuses (status changes),
 * plates (a reassignment's assignees, a wake's agent; `from_handle`/`to_handle` name them) or the
 * retry's copy (`to`); `detail` holds what the kind adds (a completion's summary, a claim's
 * instance, renewals' count and last time, a review's verdict, a merge's commit).
 */
export const taskEvent = z.object({
  seq: z.number().int(),
  at: z.string(),
  kind: z.enum(TASK_EVENT_KINDS),
  actor: taskEventActor,
  from: z.string().optional(),
  to: z.string().optional(),
  from_handle: z.string().optional(),
  to_handle: z.string().optional(),
  reason: z.string().optional(),
  wake_id: z.string().optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});

/** GET /v1/rooms/:id/tasks/:taskId/history?after=&limit=: a page of events after `after`; `next_cursor` (a seq) reads the next, null at the end. */
export const taskHistoryPage = z.object({
  events: z.array(taskEvent),
  next_cursor: z.number().int().nullable(),
});

// ---- arguments: the task tools' inputs (src-main/core/tasks/schemas.ts) and the /v1 bodies and queries (shared/contracts/tasks.ts) share these fields ----

/** docs/contract.md "Limits": a lane page holds at most this many tasks. */
export const BOARD_LIMIT_MAX = 200;

export const roomArg = z.string().min(1).max(200);
export const taskIdArg = z.string().min(1).max(200);
export const textArg = (max: number) => z.string().max(max);
export const titleArg = z.string().min(1).max(200);
export const assigneeArg = z.string().min(1).max(120);
export const orderArg = z.number().int().min(-1_000_000).max(1_000_000);
export const dependsOnArg = z.array(z.string().min(1).max(200)).max(100).describe('Task ids to finish first');
/** A statuses filter names these; "archived" adds archived tasks. */
export const boardStatus = z.enum([...TASK_STATUSES, 'archived']);
export const laneArg = z.string().min(1).max(120);
export const cursorArg = z.string().min(1).max(2000);
export const detailArg = z.enum(['summary', 'full']);

/** create_task (with its room) and POST /v1/rooms/:id/tasks (room from the path): one task, the same fields and limits. */
export const createTaskFields = {
  title: titleArg,
  definition_of_done: textArg(4000).min(1).describe('A checkable condition'),
  assignee: assigneeArg.describe('Agent handle @name(owner), or plate'),
  detail: textArg(20_000).optional(),
  order: orderArg.optional().describe('Position in the lane; lower first'),
  depends_on: dependsOnArg.optional(),
  idempotency_key: z.string().min(1).max(200).optional().describe('Retry key: no second task'),
};
export const createTaskBody = z.object(createTaskFields);

/** update_task (with its task_id) and PATCH /v1/rooms/:id/tasks/:taskId: what may change on an unfinished task. */
export const updateTaskFields = {
  title: titleArg.optional(),
  detail: textArg(20_000).nullable().optional(),
  definition_of_done: textArg(4000).min(1).optional(),
  order: orderArg.nullable().optional(),
  depends_on: dependsOnArg.optional(),
};
/** Strict: a field the board's panel may not edit (assignee, status) is refused, not ignored. */
export const updateTaskBody = z.object(updateTaskFields).strict();

/** POST …/tasks/:taskId/assign: the agent of the room the task goes to. */
export const reassignTaskBody = z.object({ assignee: assigneeArg });
/** POST …/tasks/:taskId/retry: the copy goes to the same agent unless another is named. */
export const retryTaskBody = z.strictObject({ assignee: assigneeArg.optional() });

/**
 * A lane's new order holds at most this many tasks (docs/tasks.md "Order"): a lane page's most
 * (BOARD_LIMIT_MAX), which keeps one request's checks and writes well inside the 50 ms a request
 * may hold the event loop (500 held it about 100 ms: test/security/31-lane-order.test.ts).
 */
export const LANE_ORDER_MAX = BOARD_LIMIT_MAX;
/** POST /v1/rooms/:id/lanes/:assignee/order: the lane's unfinished tasks, first to last. */
export const laneOrderBody = z.strictObject({ task_ids: z.array(taskIdArg).min(1).max(LANE_ORDER_MAX) });

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
export const taskHistoryQuery = z.object({
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
