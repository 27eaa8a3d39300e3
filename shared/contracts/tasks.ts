import { z } from 'zod';
import { endpoint } from './contract.js';
import { withActions } from './acts.js';
import { taskRecord } from '../schemas/tasks.js';
import { TASK_ACTIONS } from '../acts.js';

/** The task endpoints (docs/tasks.md): the board, one task, and what humans do with it. */

/** A task as /v1 shows it: the record with what the caller may do with it now. */
export const humanTask = withActions(taskRecord, TASK_ACTIONS);

export const reassignTaskBody = z.object({ assignee: z.string().min(1).max(120) });

export const tasks = {
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
};
