import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { archiveTask, cancelTask, createTask, reassignTask, leaseHandles, readBoard, releaseTask, requireTask, updateTask } from './service.js';
import { depsOf, LEASE_STALE_MS, openDepsOf, toRecord } from './store.js';
import { BOARD_LIMIT_HTTP, BOARD_TASK_BUDGET, statusTotals } from './board.js';
import { boardWithActions, withTaskActions } from './rules.js';
import {
  boardOutput,
  boardQuery,
  createTaskBody,
  createTaskInput,
  createTaskOutput,
  readBoardInput,
  taskHistoryInput,
  taskHistoryPage,
  taskHistoryQuery,
  taskIdInput,
  taskRecord,
  updateTaskBody,
  updateTaskInput,
} from './schemas.js';
import type { UseCaseContext } from '../usecase/define.js';
import { taskHistory } from './events.js';
import type { z } from 'zod';

/**
 * The task use cases that agents and humans share, each declared once (usecase/define.ts):
 * tasks/tools.ts and tasks/routes.ts list the tools and routes they yield, in their places.
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
    method: 'POST',
    path: '/v1/rooms/:id/tasks',
    body: createTaskBody,
    status: (task) => (task.replayed ? 200 : 201),
    // A /v1 record carries what the owner calling may do with it now (tasks/rules.ts).
    present: (task, { core, caller }) => (caller.kind === 'human' ? withTaskActions(core.db, task.room, caller.ownerId, [task])[0] : task),
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
    method: 'GET',
    path: '/v1/rooms/:id/board',
    query: boardQuery,
    input: ({ params, query }) => ({ room: params.id, ...(query as ReturnType<typeof boardQuery.parse>) }),
    present: (board, { core, caller, input }) => ({
      ...(caller.kind === 'human' ? boardWithActions(core.db, input.room, caller.ownerId, board) : board),
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

/** A /v1 task record carries what the owner calling may do with it now (tasks/rules.ts); an agent's is the record as is. */
function shownTo<T extends { task_id: string; room: string }>({ core, caller }: UseCaseContext, task: T) {
  return caller.kind === 'human' ? withTaskActions(core.db, task.room, caller.ownerId, [task])[0]! : task;
}

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
  route: { method: 'GET', path: '/v1/rooms/:id/tasks/:taskId', input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
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
  route: { method: 'PATCH', path: '/v1/rooms/:id/tasks/:taskId', body: updateTaskBody, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
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
  route: { method: 'POST', path: '/v1/rooms/:id/tasks/:taskId/release', body: null, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
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
  route: { method: 'POST', path: '/v1/rooms/:id/tasks/:taskId/archive', body: null, input: taskInPath, present: (task, ctx) => shownTo(ctx, task) },
});

/**
 * A task's recorded history (docs/tasks.md "History"), oldest first, paged by `after` (the last
 * seq read). The window's task page reads it; agents have read_task and the board.
 */
export const taskHistoryUseCase = defineUseCase({
  input: taskHistoryInput,
  output: taskHistoryPage,
  room: 'record',
  handler: ({ core, caller, room }, a) => {
    const t = requireTask(core.db, caller, { taskId: a.task_id, room: room?.id });
    return taskHistory(core.db, t.id, { after: a.after, limit: a.limit });
  },
  route: {
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/history',
    query: taskHistoryQuery,
    input: ({ params, query }) => ({ task_id: params.taskId, ...(query as z.output<typeof taskHistoryQuery>) }),
  },
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
