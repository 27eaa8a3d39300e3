import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { requireHumanRoom } from '../rooms/store.js';
import { TASK_STATUSES } from './transitions.js';
import { archiveTask, cancelTask, createTask, leaseHandles, readBoard, reassignTask, releaseTask, requireTask, updateTask } from './service.js';
import { depsOf, openDepsOf, toRecord } from './store.js';
import { BOARD_LIMIT_HTTP, BOARD_LIMIT_MAX, BOARD_TASK_BUDGET } from './board.js';

const statusList = z.enum([...TASK_STATUSES, 'archived']);

/**
 * The /v1 default page per lane: the response budget shared by every lane (and done), at
 * least BOARD_LIMIT_HTTP and at most 50, so a board of a few lanes shows them whole and a
 * board of 50 lanes still shows the first tasks of every lane (docs/tasks.md).
 */
const httpLaneLimit = (_lane: string, lanes: number) => Math.max(BOARD_LIMIT_HTTP, Math.min(50, Math.floor(BOARD_TASK_BUDGET / Math.max(1, lanes))));

export const taskRoutes: LegacyRoute[] = [
  {
    method: 'GET',
    path: '/v1/rooms/:id/board',
    handler: ({ core, owner, params, url }) => {
      requireHumanRoom(core.db, params.id!, owner.owner_id);
      const q = parseWith(
        z.object({
          assignee: z.string().min(1).max(120).optional(),
          status: z.string().max(200).optional(),
          limit: z.coerce.number().int().min(0).max(BOARD_LIMIT_MAX).optional(),
          lane: z.string().min(1).max(120).optional(),
          cursor: z.string().min(1).max(2000).optional(),
          detail: z.enum(['summary', 'full']).optional(),
        }),
        Object.fromEntries(url.searchParams),
      );
      const statuses = q.status ? parseWith(z.array(statusList), q.status.split(',')) : undefined;
      return readBoard(core.db, params.id!, { ...q, statuses, limit: q.limit ?? httpLaneLimit, instanceHandle: leaseHandles(core) });
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/tasks',
    handler: ({ core, owner, params, body }) => {
      const input = parseWith(
        z.object({
          title: z.string().min(1).max(200),
          definition_of_done: z.string().min(1).max(4000),
          assignee: z.string().min(1).max(120),
          detail: z.string().max(20_000).optional(),
          order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
          depends_on: z.array(z.string().min(1).max(200)).max(100).optional(),
          idempotency_key: z.string().min(1).max(200).optional(),
        }),
        body,
      );
      const task = createTask(core, { kind: 'human', ownerId: owner.owner_id }, {
        roomId: params.id!,
        title: input.title,
        definitionOfDone: input.definition_of_done,
        assignee: input.assignee,
        detail: input.detail,
        order: input.order,
        dependsOn: input.depends_on,
        idempotencyKey: input.idempotency_key,
      });
      return new Status(task.replayed ? 200 : 201, task);
    },
  },
  {
    method: 'GET',
    path: '/v1/rooms/:id/tasks/:taskId',
    handler: ({ core, owner, params }) => {
      const t = requireTask(core.db, { kind: 'human', ownerId: owner.owner_id }, params.taskId!, params.id!);
      return toRecord(core.db, t, depsOf(core.db, t.id), openDepsOf(core.db, t.id));
    },
  },
  {
    // A human edits an unfinished task (the board's detail panel): same rules as update_task, with the human's right to edit.
    method: 'PATCH',
    path: '/v1/rooms/:id/tasks/:taskId',
    handler: ({ core, owner, params, body }) => {
      const input = parseWith(
        z
          .object({
            title: z.string().min(1).max(200).optional(),
            detail: z.string().max(20_000).nullable().optional(),
            definition_of_done: z.string().min(1).max(4000).optional(),
            order: z.number().int().min(-1_000_000).max(1_000_000).nullable().optional(),
            depends_on: z.array(z.string().min(1).max(200)).max(100).optional(),
          })
          .strict(),
        body,
      );
      return updateTask(
        core,
        { kind: 'human', ownerId: owner.owner_id },
        params.taskId!,
        { title: input.title, detail: input.detail, definitionOfDone: input.definition_of_done, order: input.order, dependsOn: input.depends_on },
        params.id!,
      );
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/assign',
    handler: ({ core, owner, params, body }) => {
      const input = parseWith(z.object({ assignee: z.string().min(1).max(120) }), body);
      return reassignTask(core, { kind: 'human', ownerId: owner.owner_id }, params.id!, params.taskId!, input.assignee);
    },
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/cancel',
    handler: ({ core, owner, params }) => cancelTask(core, { kind: 'human', ownerId: owner.owner_id }, params.id!, params.taskId!),
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/release',
    handler: ({ core, owner, params }) => releaseTask(core, { kind: 'human', ownerId: owner.owner_id }, params.taskId!, params.id!),
  },
  {
    method: 'POST',
    path: '/v1/rooms/:id/tasks/:taskId/archive',
    handler: ({ core, owner, params }) => archiveTask(core, { kind: 'human', ownerId: owner.owner_id }, params.taskId!, params.id!),
  },
];
