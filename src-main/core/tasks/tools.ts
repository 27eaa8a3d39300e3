import { defineTool, type ToolContext } from '../mcp/tool.js';
import { AppError } from '../errors/app-error.js';
import { setTrustUseCase } from '../rooms/use-cases.js';
import { createTaskUseCase, readBoardUseCase } from './use-cases.js';
import {
  archiveTask,
  claimTask,
  completeTask,
  releaseTask,
  renewLease,
  setStatus,
  requireTask,
  updateTask,
  type Actor,
} from './service.js';
import { depsOf, openDepsOf, toRecord } from './store.js';
import {
  acceptTaskInput,
  claimTaskInput,
  claimTaskOutput,
  completeTaskInput,
  completeTaskOutput,
  legacyConsentOutput,
  pendingConsentsInput,
  pendingConsentsOutput,
  rejectTaskInput,
  renewLeaseInput,
  retiredInput,
  retiredOutput,
  setStatusInput,
  taskIdInput,
  taskRecord,
  updateTaskInput,
} from './schemas.js';

function agentActor(ctx: ToolContext): Extract<Actor, { kind: 'agent' }> {
  return { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId, sessionId: ctx.sessionId };
}

const NOTHING_PENDING = 'Nothing is ever pending: a cross-owner task is created accepted when the owner Trusts the room, and refused otherwise.';

export const taskTools = [
  // One use case with POST /v1/rooms/:id/tasks (tasks/use-cases.ts).
  createTaskUseCase.tool,
  defineTool({
    name: 'update_task',
    title: 'Update a task',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Edits an unfinished task\'s title, detail, definition_of_done, order or depends_on when the plan changes; returns the task.',
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
    description: 'Starts a todo task assigned to you (doing, your lease) and returns it; call it before working, and on already_claimed stop.',
    input: claimTaskInput,
    output: claimTaskOutput,
    handler: (ctx, a) => claimTask(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'renew_lease',
    title: 'Renew a task lease',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Renews the lease of your doing task; call it at least every 2 minutes while working or it shows stale; returns the task.',
    input: renewLeaseInput,
    output: taskRecord,
    handler: (ctx, a) => renewLease(ctx.core, agentActor(ctx), a.task_id, a.instance_id ?? ctx.sessionId),
  }),
  defineTool({
    name: 'release_task',
    title: 'Release a task',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Gives back your doing task unfinished (to todo, lease ended) when you cannot go on; returns the task.',
    input: taskIdInput,
    output: taskRecord,
    handler: (ctx, a) => releaseTask(ctx.core, agentActor(ctx), { taskId: a.task_id }),
  }),
  defineTool({
    name: 'set_status',
    title: 'Set task status',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Moves your task to todo, blocked or failed (give a reason) when it cannot be completed; returns the task.',
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
    description: 'Finishes your doing task when work ends: done (with handoff_notes), blocked or failed (with reason); returns the task and unblocked ids.',
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
  // One use case with GET /v1/rooms/:id/board (tasks/use-cases.ts).
  readBoardUseCase.tool,
  defineTool({
    name: 'read_task',
    scope: 'READ',
    title: 'Read a task',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'The full record of one task; use it when read_board\'s compact entry is not enough.',
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
    description: 'Archives a finished task of yours once work is over (off the board, still readable by id); returns the task.',
    input: taskIdInput,
    output: taskRecord,
    handler: (ctx, a) => archiveTask(ctx.core, agentActor(ctx), { taskId: a.task_id }),
  }),
  // One use case with PUT /v1/rooms/:id/consent (rooms/use-cases.ts).
  setTrustUseCase.tool,
  defineTool({
    name: 'accept_task',
    title: 'Accept a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy, only for old clients: nothing is ever pending, so it acts on nothing and returns {acted: false}.',
    input: acceptTaskInput,
    output: legacyConsentOutput,
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'reject_task',
    title: 'Reject a task (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Legacy, only for old clients: nothing is ever pending, so it acts on nothing and returns {acted: false}.',
    input: rejectTaskInput,
    output: legacyConsentOutput,
    handler: () => ({ acted: false, pending: 0, message: NOTHING_PENDING }),
  }),
  defineTool({
    name: 'list_pending_consents',
    title: 'List pending consents (legacy)',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Legacy, only for old clients: nothing is ever pending, so it returns an empty list.',
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
