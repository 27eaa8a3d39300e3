import { z } from 'zod';
import { defineTool, type ToolContext } from '../mcp/tool.js';
import { AppError } from '../errors/app-error.js';
import { immediate } from '../db/open.js';
import { requireAgentRoom, setTrust, touchRoom } from '../rooms/store.js';
import { TASK_STATUSES } from './transitions.js';
import {
  archiveTask,
  claimTask,
  completeTask,
  createTask,
  readBoard,
  releaseTask,
  renewLease,
  setStatus,
  updateTask,
  type Actor,
} from './service.js';

const roomArg = z.string().min(1).max(200).describe('Room id (room_…), from list_rooms');
const taskIdArg = z.string().min(1).max(200).describe('Task id (task_…), from read_board');
const text = (max: number) => z.string().max(max);
const dependsOnArg = z.array(z.string().min(1).max(200)).max(100).describe('Task ids of this room that must be done before this task can be claimed');
const artifactsArg = z.array(z.string().min(1).max(2000)).max(100).describe('References to what was produced (file paths, URLs, commit ids)');

function agentActor(ctx: ToolContext): Extract<Actor, { kind: 'agent' }> {
  return { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId, sessionId: ctx.sessionId };
}

const NOTHING_PENDING = 'Nothing is ever pending: a cross-owner task is created accepted when the owner Trusts the room, and refused otherwise.';

export const taskTools = [
  defineTool({
    name: 'create_task',
    title: 'Create a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Create a task on the room board, hard-locked to one assignee (an agent handle @name(owner) from list_members, or a plate). Give a clear definition_of_done. depends_on lists task ids that must be done first. Assigning to another owner’s agent needs that owner’s Trust in the room, else CONSENT_REQUIRED. Returns the task record (task_id, status todo, consent_state).',
    input: z.object({
      room: roomArg,
      title: z.string().min(1).max(200),
      definition_of_done: text(4000).min(1).describe('The condition that must be met for done'),
      assignee: z.string().min(1).max(120).describe('Agent handle @name(owner), or plate'),
      detail: text(20_000).optional(),
      order: z.number().int().min(-1_000_000).max(1_000_000).optional().describe('Position in the lane; lower first'),
      depends_on: dependsOnArg.optional(),
      idempotency_key: z.string().min(1).max(200).optional().describe('Repeat with the same key to get the original result without a second task'),
    }),
    handler: (ctx, a) =>
      createTask(ctx.core, agentActor(ctx), {
        roomId: a.room,
        title: a.title,
        definitionOfDone: a.definition_of_done,
        assignee: a.assignee,
        detail: a.detail,
        order: a.order,
        dependsOn: a.depends_on,
        idempotencyKey: a.idempotency_key,
      }),
  }),
  defineTool({
    name: 'update_task',
    title: 'Update a task',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Edit an unfinished task you are assigned or created: title, detail, definition_of_done, order, depends_on (replaces the list; cycles are refused). The assignee and status never change here. Use it when the plan changes. Returns the task record.',
    input: z.object({
      task_id: taskIdArg,
      title: z.string().min(1).max(200).optional(),
      detail: text(20_000).nullable().optional(),
      definition_of_done: text(4000).min(1).optional(),
      order: z.number().int().min(-1_000_000).max(1_000_000).nullable().optional(),
      depends_on: dependsOnArg.optional(),
    }),
    handler: (ctx, a) =>
      updateTask(ctx.core, agentActor(ctx), a.task_id, {
        title: a.title,
        detail: a.detail,
        definitionOfDone: a.definition_of_done,
        order: a.order,
        dependsOn: a.depends_on,
      }),
  }),
  defineTool({
    name: 'claim_task',
    title: 'Claim a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Start a todo task assigned to you: it moves to doing and your instance holds its lease. Refused with reason not_assigned (not yours), already_claimed (another instance of you holds it: stop, do not retry) or blocked_by_deps (a prerequisite is not done). Returns the task record with claimed true, or claimed false if this instance already held it.',
    input: z.object({
      task_id: taskIdArg,
      instance_id: z.string().min(1).max(200).optional().describe('The instance that will hold the lease; defaults to this MCP session'),
    }),
    handler: (ctx, a) => claimTask(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'renew_lease',
    title: 'Renew a task lease',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Heartbeat for a doing task your instance holds; call it at least every 2 minutes while working, or read_board flags the task stale. Nothing else happens to a stale task. Returns the task record.',
    input: z.object({
      task_id: taskIdArg,
      instance_id: z.string().min(1).max(200).optional().describe('The holding instance, if you claimed with an explicit instance_id'),
    }),
    handler: (ctx, a) => renewLease(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'release_task',
    title: 'Release a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Give back a doing task of yours without finishing it: it returns to todo in your lane and the lease ends. Returns the task record.',
    input: z.object({ task_id: taskIdArg }),
    handler: (ctx, a) => releaseTask(ctx.core, agentActor(ctx), a.task_id),
  }),
  defineTool({
    name: 'set_status',
    title: 'Set task status',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Move your task to todo, blocked or failed (give a reason for blocked and failed). It never marks done: use complete_task. Returns the task record.',
    input: z.object({
      task_id: taskIdArg,
      status: z.enum(TASK_STATUSES).describe('todo, blocked or failed'),
      reason: text(4000).optional().describe('Why; recorded for blocked and failed'),
      result_ref: text(2000).optional(),
      summary: text(20_000).optional(),
      artifacts: artifactsArg.optional(),
      next: text(4000).optional().describe('What should happen next'),
    }),
    handler: (ctx, a) =>
      setStatus(ctx.core, agentActor(ctx), a.task_id, {
        status: a.status,
        reason: a.reason,
        resultRef: a.result_ref,
        summary: a.summary,
        artifacts: a.artifacts,
        next: a.next,
      }),
  }),
  defineTool({
    name: 'complete_task',
    title: 'Complete a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Finish your doing task. status done means definition_of_done is met and requires handoff_notes: they go verbatim to the assignees of the tasks that depended on this one, who are woken. status blocked or failed needs a reason. ack_ids clears inbox items you handled. Returns the task record and unblocked (task ids now claimable).',
    input: z.object({
      task_id: taskIdArg,
      status: z.enum(['done', 'blocked', 'failed']),
      summary: text(20_000).optional(),
      handoff_notes: text(64 * 1024).optional().describe('Required for done: what the next agent needs to know'),
      artifacts: artifactsArg.optional(),
      reason: text(4000).optional(),
      result_ref: text(2000).optional().describe('Where the result is'),
      next: text(4000).optional(),
      ack_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe('Inbox mention_ids to clear'),
    }),
    handler: (ctx, a) =>
      completeTask(ctx.core, agentActor(ctx), a.task_id, {
        status: a.status,
        summary: a.summary,
        handoffNotes: a.handoff_notes,
        artifacts: a.artifacts,
        reason: a.reason,
        resultRef: a.result_ref,
        next: a.next,
        ackIds: a.ack_ids,
      }),
  }),
  defineTool({
    name: 'read_board',
    title: 'Read the task board',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description:
      'The room board: lanes (one per agent: assignee, handle, tasks by order) and the done view, with blocked_by (unmet prerequisites) and lease.stale per task, and context_version. Filter by assignee (handle or plate) and status; cancelled and archived tasks appear only when status asks for them.',
    input: z.object({
      room: roomArg,
      assignee: z.string().min(1).max(120).optional(),
      status: z
        .union([z.enum([...TASK_STATUSES, 'archived']), z.array(z.enum([...TASK_STATUSES, 'archived'])).max(7)])
        .optional()
        .describe('One status or a list; "archived" includes archived tasks'),
    }),
    handler: (ctx, a) => {
      requireAgentRoom(ctx.core.db, a.room, ctx.agent.plate);
      const statuses = a.status === undefined ? undefined : Array.isArray(a.status) ? a.status : [a.status];
      return readBoard(ctx.core.db, a.room, { assignee: a.assignee, statuses });
    },
  }),
  defineTool({
    name: 'archive_task',
    title: 'Archive a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Remove a done, failed or cancelled task (that you are assigned or created) from the board; it stays readable by id. Use it to tidy the board once work is over. Returns the task record.',
    input: z.object({ task_id: taskIdArg }),
    handler: (ctx, a) => archiveTask(ctx.core, agentActor(ctx), a.task_id),
  }),
  defineTool({
    name: 'set_room_consent',
    title: 'Set room consent',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Your owner’s Trust toggle in this room: trust_room lets agents of other owners assign you tasks and wake you; blocked (the default) refuses that. Affects only your owner. Returns {room, mode}.',
    input: z.object({ room: roomArg, mode: z.enum(['trust_room', 'blocked']) }),
    handler: (ctx, a) => {
      const { db } = ctx.core;
      requireAgentRoom(db, a.room, ctx.agent.plate);
      immediate(db, () => {
        setTrust(db, a.room, ctx.agent.ownerId, a.mode);
        touchRoom(db, a.room, ['roster']);
      });
      ctx.core.bus.emit({ type: 'trust.changed', room: a.room });
      return { room: a.room, mode: a.mode };
    },
  }),
  defineTool({
    name: 'accept_task',
    title: 'Accept a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: `Legacy, kept for old clients; you never need it. ${NOTHING_PENDING} Acts on nothing and returns {acted: false}.`,
    input: z.object({ task_id: z.string().max(200).optional() }),
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'reject_task',
    title: 'Reject a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: `Legacy, kept for old clients; you never need it. ${NOTHING_PENDING} Acts on nothing and returns {acted: false}.`,
    input: z.object({ task_id: z.string().max(200).optional(), reason: z.string().max(4000).optional() }),
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'list_pending_consents',
    title: 'List pending consents (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: `Legacy, kept for old clients; you never need it. ${NOTHING_PENDING} Always returns an empty list.`,
    input: z.object({ room: z.string().max(200).optional() }),
    handler: () => ({ pending: [], message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'assign_task',
    title: 'Assign a task (retired)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    advertised: false,
    description: 'Retired.',
    input: z.object({}),
    handler: () => {
      throw new AppError('FORBIDDEN', 'assign_task is retired: tasks are hard-locked to their assignee; ask a room admin to reassign on the board', {
        reason: 'assign_task_retired',
      });
    },
  }),
];
