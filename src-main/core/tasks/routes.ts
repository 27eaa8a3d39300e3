import type { Core } from '../core.js';
import { defineRoute, Status } from '../http/router.js';
import { retryTask } from './service.js';
import { archiveTaskUseCase, cancelTaskUseCase, reassignTaskUseCase, createTaskUseCase, readBoardUseCase, readTaskUseCase, releaseTaskUseCase, taskHistoryUseCase, updateTaskUseCase } from './use-cases.js';
import { retryTaskBody } from './schemas.js';
import { withTaskActions } from './rules.js';

/** A /v1 task record with what the owner calling may do with it now (docs/tasks.md). */
function withActions<T extends { task_id: string; room: string }>(db: Core['db'], ownerId: string, rec: T) {
  return withTaskActions(db, rec.room, ownerId, [rec])[0]!;
}

/**
 * The task routes of humans. Those shared with the agents' tools are use cases (tasks/use-cases.ts):
 * the board, creating, reading, editing, releasing and archiving a task. Assigning, cancelling and
 * retrying are the humans' alone; they act on one task of the room `:id`, which the service checks
 * (a task of another room is "task not found").
 */
export const taskRoutes = [
  readBoardUseCase.route,
  createTaskUseCase.route,
  readTaskUseCase.route,
  taskHistoryUseCase.route,
  updateTaskUseCase.route,
  reassignTaskUseCase.route,
  cancelTaskUseCase.route,
  releaseTaskUseCase.route,
  archiveTaskUseCase.route,
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/retry',
    room: 'member',
    body: retryTaskBody,
    handler: ({ core, owner, params }, { body }) =>
      new Status(201, withActions(core.db, owner.owner_id, retryTask(core, { kind: 'human', ownerId: owner.owner_id }, { room: params.id, taskId: params.taskId, assignee: body.assignee }))),
  }),
];
