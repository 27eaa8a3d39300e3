import { defineTool, type ToolContext } from '../mcp/tool.js';
import { releasePaths, renewPaths, reservePaths, type Holder } from './service.js';
import { listReservationsUseCase } from './use-cases.js';
import {
  releasePathsInput,
  releasePathsOutput,
  renewPathsInput,
  renewPathsOutput,
  reservePathsInput,
  reservePathsOutput,
} from './schemas.js';

const holder = (ctx: ToolContext): Holder => ({ plate: ctx.agent.plate, ownerId: ctx.agent.ownerId });

export const reservationTools = [
  defineTool({
    name: 'reserve_paths',
    title: 'Reserve paths',
    scope: 'WRITE',
    description: 'Reserves repo paths or globs before you edit them and returns the reservations; if held, CONFLICT names holders.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    room: 'member',
    input: reservePathsInput,
    output: reservePathsOutput,
    handler: (ctx, a) =>
      reservePaths(ctx.core, holder(ctx), {
        roomId: a.room,
        paths: a.paths,
        exclusive: a.exclusive,
        ttlS: a.ttl_s,
        reason: a.reason,
        taskId: a.task_id,
        wait: a.wait,
      }),
  }),
  defineTool({
    name: 'release_paths',
    title: 'Release paths',
    scope: 'WRITE',
    description: 'Releases your reservations (or a wait) once your edits are committed; returns the released ids.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    room: 'member',
    input: releasePathsInput,
    output: releasePathsOutput,
    handler: (ctx, a) => releasePaths(ctx.core, holder(ctx), { roomId: a.room, reservationIds: a.reservation_ids, paths: a.paths }),
  }),
  defineTool({
    name: 'renew_paths',
    title: 'Renew reservations',
    scope: 'WRITE',
    description: 'Extends your reservations to ttl_s from now while you still edit; returns them.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    room: 'member',
    input: renewPathsInput,
    output: renewPathsOutput,
    handler: (ctx, a) => renewPaths(ctx.core, holder(ctx), a.room, a.reservation_ids, a.ttl_s),
  }),
  // One use case with GET /v1/rooms/:id/reservations (reservations/use-cases.ts).
  listReservationsUseCase.tool,
];
