import { z } from 'zod';
import { TASK_STATUSES } from './transitions.js';
import {
  assigneeArg,
  BOARD_LIMIT_MAX,
  boardStatus,
  createTaskFields,
  cursorArg,
  detailArg,
  laneArg,
  roomArg,
  taskIdArg,
  taskRecord,
  textArg as text,
  updateTaskFields,
} from '../../../shared/schemas/tasks.js';

// ---- arguments: the tools' inputs build on the fields the /v1 bodies and queries use (shared/schemas/tasks.ts) ----

const artifactsArg = z.array(z.string().min(1).max(2000)).max(100).describe('Paths, URLs or commit ids produced');
const instanceIdArg = z.string().min(1).max(200);

/** create_task: POST /v1/rooms/:id/tasks's fields (shared/schemas/tasks.ts `createTaskBody`), with the room. */
export const createTaskInput = z.object({ room: roomArg, ...createTaskFields });

/** update_task: PATCH /v1/rooms/:id/tasks/:taskId's fields, with the task. */
export const updateTaskInput = z.object({ task_id: taskIdArg, ...updateTaskFields });

export const claimTaskInput = z.object({
  task_id: taskIdArg,
  instance_id: instanceIdArg.optional().describe('Lease holder; default: this MCP session'),
});

export const renewLeaseInput = z.object({
  task_id: taskIdArg,
  instance_id: instanceIdArg.optional().describe('The instance_id you claimed with, if any'),
});

export const taskIdInput = z.object({ task_id: taskIdArg });

export const setStatusInput = z.object({
  task_id: taskIdArg,
  // Listed as the three it moves to; `done` and the rest are still accepted, to be answered CONFLICT ("use complete_task").
  status: z.enum(TASK_STATUSES).meta({ listed: { type: 'string', enum: ['todo', 'blocked', 'failed'] } }),
  reason: text(4000).optional().describe('Why; recorded for blocked and failed'),
  result_ref: text(2000).optional(),
  summary: text(20_000).optional(),
  artifacts: artifactsArg.optional(),
  next: text(4000).optional(),
});

export const completeTaskInput = z.object({
  task_id: taskIdArg,
  status: z.enum(['done', 'blocked', 'failed']),
  summary: text(20_000).optional(),
  handoff_notes: text(64 * 1024).optional().describe('Required for done; goes to dependants'),
  artifacts: artifactsArg.optional(),
  reason: text(4000).optional(),
  result_ref: text(2000).optional(),
  next: text(4000).optional(),
  ack_ids: z.array(z.string().min(1).max(200)).max(500).optional().describe('Inbox mention_ids to clear'),
});

export const readBoardInput = z.object({
  room: roomArg,
  assignee: assigneeArg.optional(),
  // Listed as a list; one status alone is accepted too.
  status: z
    .union([boardStatus, z.array(boardStatus).max(7)])
    .optional()
    .meta({ listed: { type: 'array', items: { type: 'string', enum: [...TASK_STATUSES, 'archived'] } } })
    .describe('"archived" adds archived tasks'),
  limit: z.number().int().min(0).max(BOARD_LIMIT_MAX).optional(),
  lane: laneArg.optional().describe('More of one lane: its plate or "done", with its cursor'),
  cursor: cursorArg.optional(),
  detail: detailArg.optional(),
});

/** The legacy consent tools take what old clients sent and act on nothing. */
export const acceptTaskInput = z.object({ task_id: z.string().max(200).optional() });
export const rejectTaskInput = z.object({ task_id: z.string().max(200).optional(), reason: z.string().max(4000).optional() });
export const pendingConsentsInput = z.object({ room: z.string().max(200).optional() });

/** assign_task is retired: it takes nothing and never succeeds, so an empty result is all it could return. */
export const retiredInput = z.object({});
export const retiredOutput = z.object({});

// ---- results (the records are in shared/schemas/tasks.ts) ----

export { boardOutput, taskRecord } from '../../../shared/schemas/tasks.js';

export const createTaskOutput = taskRecord.extend({ replayed: z.boolean().optional() });
export const claimTaskOutput = taskRecord.extend({ claimed: z.boolean() });
export const completeTaskOutput = taskRecord.extend({ unblocked: z.array(z.string()) });

/** The legacy consent tools: nothing is ever pending. */
export const legacyConsentOutput = z.object({ acted: z.boolean(), pending: z.number().int(), message: z.string() });
export const pendingConsentsOutput = z.object({ pending: z.array(z.never()), message: z.string() });
