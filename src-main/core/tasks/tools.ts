import { defineTool, type ToolContext } from '../mcp/tool.js';
import { AppError } from '../errors/app-error.js';
import { setTrustUseCase } from '../rooms/use-cases.js';
import { archiveTaskUseCase, createTaskUseCase, readBoardUseCase, readTaskUseCase, releaseTaskUseCase, updateTaskUseCase } from './use-cases.js';
import { claimTask, completeTask, renewLease, setStatus, type Actor } from './service.js';
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
  taskRecord,
} from './schemas.js';

function agentActor(ctx: ToolContext): Extract<Actor, { kind: 'agent' }> {
  return { kind: 'agent', plate: ctx.agent.plate, ownerId: ctx.agent.ownerId, sessionId: ctx.sessionId };
}

const NOTHING_PENDING = 'Nothing is ever pending: a cross-owner task is created accepted when the owner Trusts the room, and refused otherwise.';

export const taskTools = [
  // One use case with POST /v1/rooms/:id/tasks (tasks/use-cases.ts).
  createTaskUseCase.tool,
  // One use case with PATCH /v1/rooms/:id/tasks/:taskId (tasks/use-cases.ts), as are read, release and archive.
  updateTaskUseCase.tool,
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
  releaseTaskUseCase.tool,
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
  readTaskUseCase.tool,
  archiveTaskUseCase.tool,
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
