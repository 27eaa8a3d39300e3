import type { Core } from '../core.js';
import { defineRoute, Status } from '../http/router.js';
import { archiveTask, cancelTask, createTask, leaseHandles, readBoard, reassignTask, releaseTask, requireTask, retryTask, updateTask } from './service.js';
import { depsOf, openDepsOf, toRecord } from './store.js';
import { BOARD_LIMIT_HTTP, BOARD_TASK_BUDGET, statusTotals } from './board.js';
import { boardWithActions, withTaskActions } from './rules.js';
import { boardQuery, createTaskBody, reassignTaskBody, retryTaskBody, updateTaskBody } from './schemas.js';

/**
 * The /v1 default page per lane: the response budget shared by every lane (and done), at
 * least BOARD_LIMIT_HTTP and at most 50, so a board of a few lanes shows them whole and a
 * board of 50 lanes still shows the first tasks of every lane (docs/tasks.md).
 */
const httpLaneLimit = (_lane: string, lanes: number) => Math.max(BOARD_LIMIT_HTTP, Math.min(50, Math.floor(BOARD_TASK_BUDGET / Math.max(1, lanes))));

/** A /v1 task record with what the owner calling may do with it now (docs/tasks.md). */
function withActions<T extends { task_id: string; room: string }>(db: Core['db'], ownerId: string, rec: T) {
  return withTaskActions(db, rec.room, ownerId, [rec])[0]!;
}

/**
 * Only the board declares `room:`. The task routes leave the check to the service, which
 * agents share: a human outside the room gets the same "task not found" (or "room not found"
 * on create) as for a task or room that does not exist, after the body is read as before.
 */
export const taskRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/rooms/:id/board',
    room: 'member',
    query: boardQuery,
    // `status_totals`: every unarchived task of the room per status, whatever the page (the UI's status columns).
    handler: ({ core, owner, room }, { query }) => ({
      ...boardWithActions(core.db, room.id, owner.owner_id, readBoard(core.db, room.id, {
        assignee: query.assignee,
        statuses: query.status,
        lane: query.lane,
        cursor: query.cursor,
        detail: query.detail,
        limit: query.limit ?? httpLaneLimit,
        instanceHandle: leaseHandles(core),
      })),
      status_totals: statusTotals(core.db, room.id),
    }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/rooms/:id/tasks',
    room: 'member',
    body: createTaskBody,
    handler: ({ core, owner, params }, { body }) => {
      const task = createTask(core, { kind: 'human', ownerId: owner.owner_id }, {
        roomId: params.id,
        title: body.title,
        definitionOfDone: body.definition_of_done,
        assignee: body.assignee,
        detail: body.detail,
        order: body.order,
        dependsOn: body.depends_on,
        idempotencyKey: body.idempotency_key,
      });
      return new Status(task.replayed ? 200 : 201, withActions(core.db, owner.owner_id, task));
    },
  }),
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
