import { z } from 'zod';
import { endpoint } from './contract.js';
import { withActions } from './acts.js';
import {
  boardOutput,
  boardQuery,
  boardTask,
  createTaskBody,
  laneOrderBody,
  reassignTaskBody,
  retryTaskBody,
  taskHistoryPage,
  taskHistoryQuery,
  taskRecord,
  taskStatus,
  updateTaskBody,
} from '../schemas/tasks.js';
import { TASK_ACTIONS } from '../acts.js';

/** The task endpoints (docs/tasks.md): the board, one task, and what humans do with it. */

/** Other open tasks whose branches change the same files (docs/review.md "Overlaps"): every /v1 task says them. */
const overlaps = z.array(z.object({ task_id: z.string(), title: z.string(), paths: z.array(z.string()) }));

/** A task as /v1 shows it: the record with what the caller may do with it now, and its overlaps. */
export const humanTask = withActions(taskRecord, TASK_ACTIONS).extend({ overlaps });

/** A board page's task as /v1 shows it (compact, or the full record with detail=full), with its acts and overlaps. */
export const humanBoardTask = withActions(boardTask, TASK_ACTIONS).extend({ overlaps });

const boardLane = boardOutput.shape.lanes.element;

/**
 * GET /v1/rooms/:id/board: read_board's page with every task's acts, the room-wide reassign
 * right, the unarchived tasks of the room per status whatever the page (the window's status
 * columns) and how long a doing task's lease may go unrenewed before it shows stale.
 */
export const humanBoard = withActions(
  boardOutput.extend({
    lanes: z.array(boardLane.extend({ tasks: z.array(humanBoardTask) })),
    done: z.array(humanBoardTask),
    status_totals: z.record(taskStatus, z.number().int()),
    lease_stale_after_ms: z.number().int(),
  }),
  ['reassign'],
);

export { reassignTaskBody };

export const tasks = {
  board: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/board',
    summary: 'The room\'s task board, paged per lane, with what the caller may do with each task.',
    query: boardQuery,
    output: humanBoard,
  }),
  create: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks',
    summary: 'Creates a task locked to one agent of the room (200 when an idempotency key replays the first creation).',
    body: createTaskBody,
    status: 201,
    output: humanTask.extend({ replayed: z.boolean().optional() }),
  }),
  read: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId',
    summary: 'The full record of one task.',
    output: humanTask,
  }),
  history: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId/history',
    summary: 'A task\'s recorded changes, oldest first, paged by the last seq read.',
    query: taskHistoryQuery,
    output: taskHistoryPage,
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/v1/rooms/:id/tasks/:taskId',
    summary: 'Edits an unfinished task: title, detail, definition of done, order, dependencies.',
    body: updateTaskBody,
    output: humanTask,
  }),
  assign: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/assign',
    summary: 'Gives the task to another agent of the room.',
    body: reassignTaskBody,
    output: humanTask,
  }),
  cancel: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/cancel',
    summary: 'Cancels an unfinished task.',
    output: humanTask,
  }),
  release: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/release',
    summary: 'Ends a doing task\'s lease and puts it back to todo.',
    output: humanTask,
  }),
  archive: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/archive',
    summary: 'Archives a finished task: off the board, still readable by id.',
    output: humanTask,
  }),
  retry: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/retry',
    summary: 'Repeats a failed task as a new copy, for the same agent or another.',
    body: retryTaskBody,
    status: 201,
    output: humanTask,
  }),
  reorder: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/lanes/:assignee/order',
    summary: 'Puts unfinished tasks of one lane in the order given, all or none.',
    body: laneOrderBody,
    output: z.object({ assignee: z.string(), tasks: z.array(humanTask) }),
  }),
};
