import type { Core } from '../core.js';
import { defineRoute, Status } from '../http/router.js';
import { archiveTask, cancelTask, reassignTask, releaseTask, requireTask, retryTask, updateTask } from './service.js';
import { depsOf, openDepsOf, toRecord } from './store.js';
import { createTaskUseCase, readBoardUseCase } from './use-cases.js';
import { reassignTaskBody, retryTaskBody, updateTaskBody } from './schemas.js';
import { withTaskActions } from './rules.js';

/** A /v1 task record with what the owner calling may do with it now (docs/tasks.md). */
function withActions<T extends { task_id: string; room: string }>(db: Core['db'], ownerId: string, rec: T) {
  return withTaskActions(db, rec.room, ownerId, [rec])[0]!;
}

/**
 * The task routes of humans. Reading the board and creating a task are use cases shared with the
 * agents' tools (tasks/use-cases.ts); the others act on one task of the room `:id`, which the
 * service checks (a task of another room is "task not found").
 */
export const taskRoutes = [
  readBoardUseCase.route,
  createTaskUseCase.route,
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId',
    room: 'member',
    handler: ({ core, owner, params }) => {
      const t = requireTask(core.db, { kind: 'human', ownerId: owner.owner_id }, { taskId: params.taskId, room: params.id });
      return withActions(core.db, owner.owner_id, toRecord(core.db, t, depsOf(core.db, t.id), openDepsOf(core.db, t.id)));
    },
  }),
  defineRoute({
    // A human edits an unfinished task (the board's detail panel): same rules as update_task, with the human's right to edit.
    method: 'PATCH',
    path: '/v1/rooms/:id/tasks/:taskId',
    room: 'member',
    body: updateTaskBody,
    handler: ({ core, owner, params }, { body }) =>
      withActions(core.db, owner.owner_id, updateTask(
        core,
        { kind: 'human', ownerId: owner.owner_id },
        {
          taskId: params.taskId,
          room: params.id,
          patch: { title: body.title, detail: body.detail, definitionOfDone: body.definition_of_done, order: body.order, dependsOn: body.depends_on },
        },
      )),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/assign',
    room: 'member',
    body: reassignTaskBody,
    handler: ({ core, owner, params }, { body }) => withActions(core.db, owner.owner_id, reassignTask(core, { kind: 'human', ownerId: owner.owner_id }, { room: params.id, taskId: params.taskId, assignee: body.assignee })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/cancel',
    room: 'member',
    handler: ({ core, owner, params }) => withActions(core.db, owner.owner_id, cancelTask(core, { kind: 'human', ownerId: owner.owner_id }, { room: params.id, taskId: params.taskId })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/release',
    room: 'member',
    handler: ({ core, owner, params }) => withActions(core.db, owner.owner_id, releaseTask(core, { kind: 'human', ownerId: owner.owner_id }, { taskId: params.taskId, room: params.id })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/archive',
    room: 'member',
    handler: ({ core, owner, params }) => withActions(core.db, owner.owner_id, archiveTask(core, { kind: 'human', ownerId: owner.owner_id }, { taskId: params.taskId, room: params.id })),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/retry',
    room: 'member',
    body: retryTaskBody,
    handler: ({ core, owner, params }, { body }) =>
      new Status(201, withActions(core.db, owner.owner_id, retryTask(core, { kind: 'human', ownerId: owner.owner_id }, { room: params.id, taskId: params.taskId, assignee: body.assignee }))),
  }),
];
