import { defineTool, type ToolContext } from '../mcp/tool.js';
import { AppError } from '../errors/app-error.js';
import { immediate } from '../db/open.js';
import { setTrust, touchRoom } from '../rooms/store.js';
import {
  archiveTask,
  claimTask,
  completeTask,
  createTask,
  readBoard,
  releaseTask,
  renewLease,
  setStatus,
  leaseHandles,
  requireTask,
  updateTask,
  type Actor,
} from './service.js';
import { depsOf, openDepsOf, toRecord } from './store.js';
import {
  acceptTaskInput,
  boardOutput,
  claimTaskInput,
  claimTaskOutput,
  completeTaskInput,
  completeTaskOutput,
  createTaskInput,
  createTaskOutput,
  legacyConsentOutput,
  pendingConsentsInput,
  pendingConsentsOutput,
  readBoardInput,
  rejectTaskInput,
  renewLeaseInput,
  retiredInput,
  retiredOutput,
  setRoomConsentInput,
  setRoomConsentOutput,
  setStatusInput,
  taskIdInput,
  taskRecord,
  updateTaskInput,
} from './schemas.js';

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
    room: 'member',
    input: createTaskInput,
    output: createTaskOutput,
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
    input: updateTaskInput,
    output: taskRecord,
    handler: (ctx, a) =>
      updateTask(ctx.core, agentActor(ctx), {
        taskId: a.task_id,
        patch: {
          title: a.title,
          detail: a.detail,
          definitionOfDone: a.definition_of_done,
          order: a.order,
          dependsOn: a.depends_on,
        },
      }),
  }),
  defineTool({
    name: 'claim_task',
    title: 'Claim a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Start a todo task assigned to you: it moves to doing and your instance holds its lease. Refused with reason not_assigned (not yours), already_claimed (another instance of you holds it: stop, do not retry) or blocked_by_deps (a prerequisite is not done). Returns the task record with claimed true, or claimed false if this instance already held it.',
    input: claimTaskInput,
    output: claimTaskOutput,
    handler: (ctx, a) => claimTask(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'renew_lease',
    title: 'Renew a task lease',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Heartbeat for a doing task your instance holds; call it at least every 2 minutes while working, or read_board flags the task stale. Nothing else happens to a stale task. Returns the task record.',
    input: renewLeaseInput,
    output: taskRecord,
    handler: (ctx, a) => renewLease(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'release_task',
    title: 'Release a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Give back a doing task of yours without finishing it: it returns to todo in your lane and the lease ends. Returns the task record.',
    input: taskIdInput,
    output: taskRecord,
    handler: (ctx, a) => releaseTask(ctx.core, agentActor(ctx), { taskId: a.task_id }),
  }),
  defineTool({
    name: 'set_status',
    title: 'Set task status',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Move your task to todo, blocked or failed (give a reason for blocked and failed). It never marks done: use complete_task. Returns the task record.',
    input: setStatusInput,
    output: taskRecord,
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
    input: completeTaskInput,
    output: completeTaskOutput,
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
      'The room board, paged per lane: lanes (assignee, handle, total, first tasks by order, next_cursor) and done (done_total, done_next_cursor), compact tasks with blocked_by and lease.stale, context_version. Your own lane shows most. More of a lane: call again with lane (its plate, or "done") and its cursor. Filter by assignee and status (cancelled/archived only when asked). Full records: read_task or detail "full".',
    room: 'member',
    input: readBoardInput,
    output: boardOutput,
    handler: (ctx, a) => {
      const statuses = a.status === undefined ? undefined : Array.isArray(a.status) ? a.status : [a.status];
      return readBoard(ctx.core.db, a.room, {
        assignee: a.assignee,
        statuses,
        lane: a.lane,
        cursor: a.cursor,
        detail: a.detail,
        limit: a.limit ?? (a.lane !== undefined ? MCP_LANE_PAGE : mcpDefaultLimit(ctx.agent.plate)),
        instanceHandle: leaseHandles(ctx.core),
      });
    },
  }),
  defineTool({
    name: 'read_task',
    scope: 'READ',
    title: 'Read a task',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description:
      'The full record of one task (detail, definition_of_done, lease, result, summary, artifacts, next, handoff_notes) when read_board\'s compact entry is not enough. Returns the task record.',
    input: taskIdInput,
    output: taskRecord,
    handler: (ctx, a) => {
      const t = requireTask(ctx.core.db, agentActor(ctx), { taskId: a.task_id });
      return toRecord(ctx.core.db, t, depsOf(ctx.core.db, t.id), openDepsOf(ctx.core.db, t.id));
    },
  }),
  defineTool({
    name: 'archive_task',
    title: 'Archive a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Remove a done, failed or cancelled task (that you are assigned or created) from the board; it stays readable by id. Use it to tidy the board once work is over. Returns the task record.',
    input: taskIdInput,
    output: taskRecord,
    handler: (ctx, a) => archiveTask(ctx.core, agentActor(ctx), { taskId: a.task_id }),
  }),
  defineTool({
    name: 'set_room_consent',
    title: 'Set room consent',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Your owner’s Trust toggle in this room: trust_room lets agents of other owners assign you tasks and wake you; blocked (the default) refuses that. Affects only your owner. Returns {room, mode}.',
    room: 'member',
    input: setRoomConsentInput,
    output: setRoomConsentOutput,
    handler: (ctx, a) => {
      const { db } = ctx.core;
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
    input: acceptTaskInput,
    output: legacyConsentOutput,
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'reject_task',
    title: 'Reject a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: `Legacy, kept for old clients; you never need it. ${NOTHING_PENDING} Acts on nothing and returns {acted: false}.`,
    input: rejectTaskInput,
    output: legacyConsentOutput,
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'list_pending_consents',
    title: 'List pending consents (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: `Legacy, kept for old clients; you never need it. ${NOTHING_PENDING} Always returns an empty list.`,
    input: pendingConsentsInput,
    output: pendingConsentsOutput,
    handler: () => ({ pending: [], message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'assign_task',
    title: 'Assign a task (retired)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    advertised: false,
    description: 'Retired.',
    input: retiredInput,
    output: retiredOutput,
    handler: () => {
      throw new AppError('FORBIDDEN', 'assign_task is retired: tasks are hard-locked to their assignee; ask a room admin to reassign on the board', {
        reason: 'assign_task_retired',
      });
    },
  }),
];
