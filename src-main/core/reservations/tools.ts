import { z } from 'zod';
import { defineTool, type ToolContext } from '../mcp/tool.js';
import { listForAgent, releasePaths, renewPaths, reservePaths, TTL_MAX_S, type Holder } from './service.js';

const roomArg = z.string().min(1).max(200).describe('Room id (room_…)');
const patternArg = z.string().min(1).max(512);
const idsArg = z.array(z.string().min(1).max(200)).min(1).max(100).describe('reservation_id values');
const ttlArg = z.number().int().min(1).max(TTL_MAX_S).describe('Seconds, server time');

const holder = (ctx: ToolContext): Holder => ({ plate: ctx.agent.plate, ownerId: ctx.agent.ownerId });

export const reservationTools = [
  defineTool({
    name: 'reserve_paths',
    title: 'Reserve paths',
    scope: 'WRITE',
    description:
      'Call before editing repo files: reserves repo-relative globs (src/**, a/b.ts), exclusive by default, ttl_s default 3600; with task_id it ends with the task. Returns the reservations, or CONFLICT paths_reserved (error.details.conflicts names holders); wait: true queues you and a paths_free wake follows the grant.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    input: z.object({
      room: roomArg,
      paths: z.array(patternArg).min(1).max(50).describe('Repository-relative globs'),
      exclusive: z.boolean().optional().describe('false = shared'),
      ttl_s: ttlArg.optional(),
      reason: z.string().max(500).optional(),
      task_id: z.string().min(1).max(200).optional().describe('Your task these edits belong to'),
      wait: z.boolean().optional().describe('Queue behind holders instead of failing'),
    }),
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
    description: 'Release your reservations (or cancel a wait) by id or by pattern once your edits are committed. Returns the released ids.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: z.object({ room: roomArg, reservation_ids: idsArg.optional(), paths: z.array(patternArg).min(1).max(50).optional() }),
    handler: (ctx, a) => releasePaths(ctx.core, holder(ctx), { roomId: a.room, reservationIds: a.reservation_ids, paths: a.paths }),
  }),
  defineTool({
    name: 'renew_paths',
    title: 'Renew reservations',
    scope: 'WRITE',
    description: 'Extend your reservations to ttl_s from now while you still edit. Returns the renewed reservations.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: z.object({ room: roomArg, reservation_ids: idsArg, ttl_s: ttlArg }),
    handler: (ctx, a) => renewPaths(ctx.core, holder(ctx), a.room, a.reservation_ids, a.ttl_s),
  }),
  defineTool({
    name: 'list_reservations',
    title: 'List reservations',
    scope: 'READ',
    description: 'Who holds which paths in the room (and who waits); with path, only those covering it. Use before editing a file. Returns reservations and waiting.',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: z.object({ room: roomArg, path: patternArg.optional().describe('A repository path to check') }),
    handler: (ctx, a) => listForAgent(ctx.core.db, holder(ctx), a.room, a.path),
  }),
];
