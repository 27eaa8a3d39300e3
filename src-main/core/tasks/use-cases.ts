import { agentCaller, defineUseCase, type UseCaseContext } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { AppError } from '../errors/app-error.js';
import {
  archiveTask,
  cancelTask,
  claimTask,
  completeTask,
  createTask,
  reassignTask,
  leaseHandles,
  readBoard,
  releaseTask,
  renewLease,
  reorderLane,
  requireTask,
  retryTask,
  setStatus,
  updateTask,
} from './service.js';
import { depsOf, LEASE_STALE_MS, openDepsOf, toRecord } from './store.js';
import { BOARD_LIMIT_HTTP, BOARD_TASK_BUDGET, statusTotals } from './board.js';
import { boardWithActions, withTaskActions } from './rules.js';
import {
  acceptTaskInput,
  boardOutput,
  claimTaskInput,
  claimTaskOutput,
  completeTaskInput,
  completeTaskOutput,
  createTaskInput,
  createTaskOutput,
  legacyConsentOutput,
  pendingConsentsInput,
  pendingConsentsOutput,
  readBoardInput,
  rejectTaskInput,
  renewLeaseInput,
  retiredInput,
  retiredOutput,
  setStatusInput,
  taskIdInput,
  taskRecord,
  updateTaskInput,
} from './schemas.js';
import { taskHistory } from './events.js';

/**
 * The task use cases, each declared once (usecase/define.ts): those agents and humans share,
 * those of agents alone (tools only) and those of humans alone (/v1 only, their wire face in
 * shared/contracts/tasks.ts). tasks/tools.ts and tasks/routes.ts list the tools and routes they
 * yield, in their places.
 */

/**
 * read_board's default page for an agent, sized so that a 50-lane board fits in 32 KB as sent
 * (structured content and its text copy): the caller's own lane up to 10 tasks, the others
 * share about 15 (at most 3 each; on a wide board, counts and cursors only), done 5.
 */
const MCP_OWN_LANE = 10;
const MCP_LANE_PAGE = 20;
function mcpDefaultLimit(plate: string) {
  return (lane: string, lanes: number) => {
    if (lane === plate) return MCP_OWN_LANE;
    if (lane === 'done') return 5;
    return Math.min(3, Math.floor(15 / Math.max(1, lanes - 1)));
  };
}

/**
 * The /v1 default page per lane: the response budget shared by every lane (and done), at
 * least BOARD_LIMIT_HTTP and at most 50, so a board of a few lanes shows them whole and a
 * board of 50 lanes still shows the first tasks of every lane (docs/tasks.md).
 */
const httpLaneLimit = (_lane: string, lanes: number) => Math.max(BOARD_LIMIT_HTTP, Math.min(50, Math.floor(BOARD_TASK_BUDGET / Math.max(1, lanes))));

/** A /v1 task record carries what the owner calling may do with it now (tasks/rules.ts); the tools' records do not. */
function shownTo<T extends { task_id: string; room: string }>({ core, caller }: Pick<UseCaseContext, 'core' | 'caller'>, task: T) {
  return withTaskActions(core.db, task.room, caller.ownerId, [task])[0]!;
}

/** A task locked to one assignee; an idempotency key replays the first creation (200 instead of 201 on /v1). */
export const createTaskUseCase = defineUseCase({
  input: createTaskInput,
  output: createTaskOutput,
  room: 'member',
  handler: ({ core, caller }, a) =>
    createTask(core, caller, {
      roomId: a.room,
      title: a.title,
      definitionOfDone: a.definition_of_done,
      assignee: a.assignee,
      detail: a.detail,
      order: a.order,
      dependsOn: a.depends_on,
      idempotencyKey: a.idempotency_key,
    }),
  tool: {
    name: 'create_task',
    title: 'Create a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Use it to hand work to one agent: a task locked to that assignee, with a checkable definition_of_done; returns the task.',
  },
  route: {
    contract: contracts.tasks.create,
    status: (task) => (task.replayed ? 200 : 201),
    present: (task, ctx) => shownTo(ctx, task),
  },
});

/**
 * The room's task board, paged per lane. The default page suits the reader: an agent's is
 * sized for a model's context (its own lane first), a human's for the board's columns; the
 * route adds `status_totals` (every unarchived task of the room per status, whatever the page:
 * the UI's status columns).
 */
export const readBoardUseCase = defineUseCase({
  input: readBoardInput,
  output: boardOutput,
  room: 'member',
  handler: ({ core, caller }, a) => {
    const statuses = a.status === undefined ? undefined : Array.isArray(a.status) ? a.status : [a.status];
    const defaultLimit = caller.kind === 'human' ? httpLaneLimit : a.lane !== undefined ? MCP_LANE_PAGE : mcpDefaultLimit(caller.plate);
    return readBoard(core.db, a.room, {
      assignee: a.assignee,
      statuses,
      lane: a.lane,
      cursor: a.cursor,
      detail: a.detail,
      limit: a.limit ?? defaultLimit,
      instanceHandle: leaseHandles(core),
    });
  },
  tool: {
    name: 'read_board',
    title: 'Read the task board',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'The room\'s task board, paged per lane; call it to see who does what (read_task for one full record).',
  },
  route: {
    contract: contracts.tasks.board,
    input: ({ params, query }) => ({ room: params.id, ...(query as object) }),
    present: (board, { core, caller, input }) => ({
      ...boardWithActions(core.db, input.room, caller.ownerId, board),
      status_totals: statusTotals(core.db, input.room),
      // The window says how long a lease went unrenewed from this, not from a copy of the limit.
      lease_stale_after_ms: LEASE_STALE_MS,
    }),
  },
});

// ---- one task: the tool names it by `task_id`, the route by /v1/rooms/:id/tasks/:taskId ----

/**
 * The task use cases below take the tool's input as it is (`task_id`, no room): their rule is
 * `room: 'record'`, so the service finds the task's room (one lookup) and checks the caller is a
 * member; on /v1 the router has checked the human is in `:id`, and the handler passes that room
 * on, so a task of another room is "task not found" (docs/tasks.md).
 */
const taskInPath = ({ params, body }: { params: { taskId: string }; body: unknown }) => ({ ...(body as object), task_id: params.taskId });



/** The full record of one task. */
export const readTaskUseCase = defineUseCase({
  input: taskIdInput,
  output: taskRecord,
  room: 'record',
  handler: ({ core, caller, room }, a) => {
    const t = requireTask(core.db, caller, { taskId: a.task_id, room: room?.id });
    return toRecord(core.db, t, depsOf(core.db, t.id), openDepsOf(core.db, t.id));
  },
  tool: {
    name: 'read_task',
    scope: 'READ',
    title: 'Read a task',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'The full record of one task; use it when read_board\'s compact entry is not enough.',
  },
  route: { contract: contracts.tasks.read, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
});

/** Edits an unfinished task (an agent's plan changes; a human's board detail panel): same rules, each with its right to edit. */
export const updateTaskUseCase = defineUseCase({
  input: updateTaskInput,
  output: taskRecord,
  room: 'record',
  handler: ({ core, caller, room }, a) =>
    updateTask(core, caller, {
      taskId: a.task_id,
      room: room?.id,
      patch: { title: a.title, detail: a.detail, definitionOfDone: a.definition_of_done, order: a.order, dependsOn: a.depends_on },
    }),
  tool: {
    name: 'update_task',
    title: 'Update a task',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Edits an unfinished task when the plan changes (only the fields given); returns the task.',
  },
  route: { contract: contracts.tasks.update, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
});

/** Gives a doing task back unfinished (to todo, lease ended). */
export const releaseTaskUseCase = defineUseCase({
  input: taskIdInput,
  output: taskRecord,
  room: 'record',
  handler: ({ core, caller, room }, a) => releaseTask(core, caller, { taskId: a.task_id, room: room?.id }),
  tool: {
    name: 'release_task',
    title: 'Release a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Gives back your doing task unfinished (to todo, lease ended) when you cannot go on; returns the task.',
  },
  route: { contract: contracts.tasks.release, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
});

/** Archives a finished task (off the board, still readable by id). */
export const archiveTaskUseCase = defineUseCase({
  input: taskIdInput,
  output: taskRecord,
  room: 'record',
  handler: ({ core, caller, room }, a) => archiveTask(core, caller, { taskId: a.task_id, room: room?.id }),
  tool: {
    name: 'archive_task',
    title: 'Archive a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Archives a finished task of yours once work is over (off the board, still readable by id); returns the task.',
  },
  route: { contract: contracts.tasks.archive, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
});

// ---- what humans alone do with a task of the room `:id` (the service checks it is of that room) ----

/** Gives the task to another agent of the room (a human's right to reassign, tasks/rules.ts). */
export const reassignTaskUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.tasks.assign },
  handler: (ctx, { params, body }) => shownTo(ctx, reassignTask(ctx.core, ctx.caller, { room: params.id, taskId: params.taskId, assignee: body.assignee })),
});

/** Cancels an unfinished task. */
export const cancelTaskUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.tasks.cancel },
  handler: (ctx, { params }) => shownTo(ctx, cancelTask(ctx.core, ctx.caller, { room: params.id, taskId: params.taskId })),
});

/**
 * POST /v1/rooms/:id/tasks/:taskId/retry (docs/tasks.md): a failed task's copy, for the same
 * agent or the one named (the same rights as reassignment).
 */
export const retryTaskUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.tasks.retry },
  handler: (ctx, { params, body }) => shownTo(ctx, retryTask(ctx.core, ctx.caller, { room: params.id, taskId: params.taskId, assignee: body.assignee })),
});

/**
 * A task's recorded history (docs/tasks.md "History"), oldest first, paged by `after` (the last
 * seq read). The window's task page reads it; agents have read_task and the board.
 */
export const taskHistoryUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.tasks.history },
  handler: ({ core, caller }, { params, query }) => {
    const t = requireTask(core.db, caller, { taskId: params.taskId, room: params.id });
    return taskHistory(core.db, t.id, { after: query.after, limit: query.limit });
  },
});

/**
 * A lane put in order at once (docs/tasks.md "Order"): the board's drag and Alt+Up/Down send
 * the lane's tasks in their new order, and either every order is written or none is.
 */
export const reorderLaneUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.tasks.reorder },
  handler: (ctx, { params, body }) => {
    const records = reorderLane(ctx.core, ctx.caller, { room: params.id, assignee: params.assignee, taskIds: body.task_ids });
    return { assignee: params.assignee, tasks: withTaskActions(ctx.core.db, params.id, ctx.caller.ownerId, records) };
  },
});

// ---- what agents alone do: tools only ----

const NOTHING_PENDING = 'Nothing is ever pending: a cross-owner task is created accepted when the owner Trusts the room, and refused otherwise.';

/** Starts a todo task of the caller's: doing, its lease held by the instance named (default: the MCP session). */
export const claimTaskUseCase = defineUseCase({
  input: claimTaskInput,
  output: claimTaskOutput,
  handler: ({ core, caller }, a) => {
    const agent = agentCaller(caller);
    return claimTask(core, agent, a.task_id, a.instance_id ?? agent.sessionId);
  },
  tool: {
    name: 'claim_task',
    title: 'Claim a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Starts a todo task assigned to you (doing, your lease) and returns it; call it before working, and on already_claimed stop.',
  },
});

/** The lease holder's heartbeat. */
export const renewLeaseUseCase = defineUseCase({
  input: renewLeaseInput,
  output: taskRecord,
  handler: ({ core, caller }, a) => {
    const agent = agentCaller(caller);
    return renewLease(core, agent, a.task_id, a.instance_id ?? agent.sessionId);
  },
  tool: {
    name: 'renew_lease',
    title: 'Renew a task lease',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Renews the lease of your doing task; call it at least every 2 minutes while working or it shows stale; returns the task.',
  },
});

/** The assignee moves its task to todo, blocked or failed. */
export const setStatusUseCase = defineUseCase({
  input: setStatusInput,
  output: taskRecord,
  handler: ({ core, caller }, a) =>
    setStatus(core, agentCaller(caller), a.task_id, {
      status: a.status,
      reason: a.reason,
      resultRef: a.result_ref,
      summary: a.summary,
      artifacts: a.artifacts,
      next: a.next,
    }),
  tool: {
    name: 'set_status',
    title: 'Set task status',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Moves your task to todo, blocked or failed (give a reason) when it cannot be completed; returns the task.',
  },
});

/** The assignee finishes its doing task: done with handoff notes for its dependants, or blocked or failed. */
export const completeTaskUseCase = defineUseCase({
  input: completeTaskInput,
  output: completeTaskOutput,
  handler: ({ core, caller }, a) =>
    completeTask(core, agentCaller(caller), a.task_id, {
      status: a.status,
      summary: a.summary,
      handoffNotes: a.handoff_notes,
      artifacts: a.artifacts,
      reason: a.reason,
      resultRef: a.result_ref,
      next: a.next,
      ackIds: a.ack_ids,
    }),
  tool: {
    name: 'complete_task',
    title: 'Complete a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Finishes your doing task when work ends: done (with handoff_notes), blocked or failed (with reason); returns the task and unblocked ids.',
  },
});

/** Legacy consent tools, for old clients: nothing is ever pending, so they act on nothing. */
export const acceptTaskUseCase = defineUseCase({
  input: acceptTaskInput,
  output: legacyConsentOutput,
  handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  tool: {
    name: 'accept_task',
    title: 'Accept a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy, only for old clients: nothing is ever pending, so it acts on nothing and returns {acted: false}.',
  },
});

export const rejectTaskUseCase = defineUseCase({
  input: rejectTaskInput,
  output: legacyConsentOutput,
  handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  tool: {
    name: 'reject_task',
    title: 'Reject a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy, only for old clients: nothing is ever pending, so it acts on nothing and returns {acted: false}.',
  },
});

export const pendingConsentsUseCase = defineUseCase({
  input: pendingConsentsInput,
  output: pendingConsentsOutput,
  handler: () => ({ pending: [], message: NOTHING_PENDING }),
  tool: {
    name: 'list_pending_consents',
    title: 'List pending consents (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Legacy, only for old clients: nothing is ever pending, so it returns an empty list.',
  },
});

/** assign_task is retired (tasks are hard-locked to their assignee): unlisted, it only says so. */
export const retiredAssignUseCase = defineUseCase({
  input: retiredInput,
  output: retiredOutput,
  handler: () => {
    throw new AppError('FORBIDDEN', 'assign_task is retired: tasks are hard-locked to their assignee; ask a room admin to reassign on the board', {
      reason: 'assign_task_retired',
    });
  },
  tool: {
    name: 'assign_task',
    title: 'Assign a task (retired)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    advertised: false,
    description: 'Retired.',
  },
});
