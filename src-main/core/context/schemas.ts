import { z } from 'zod';
import { roomIdArg } from '../rooms/schemas.js';
import { TASK_STATUSES } from '../tasks/transitions.js';
import { decisionRecord, focusRecord, nullableString } from '../../../shared/schemas/context.js';

// ---- arguments ----

export const roomContextInput = z.object({
  room: roomIdArg,
  since_version: z.number().int().min(0).optional().describe('The context_version you last saw'),
});

// The /v1 focus and decisions bodies and query are the contracts' (shared/schemas/context.ts, shared/contracts/context.ts).

// ---- results (the focus and the decisions are in shared/schemas/context.ts: the /v1 routes answer them too) ----

const roster = z.object({
  humans: z.array(z.object({ handle: z.string(), name: z.string(), role: z.enum(['admin', 'member']) })),
  agents: z.array(
    z.object({
      handle: z.string(),
      name: z.string(),
      revoked: z.boolean(),
      presence: z.enum(['working', 'idle', 'stalled', 'asleep', 'offline']),
      live_instances: z.array(
        z.object({ handle: z.string(), host: z.string(), working_on: z.array(z.object({ task_id: z.string(), title: z.string() })) }),
      ),
    }),
  ),
});

const myTask = z.object({
  task_id: z.string(),
  title: z.string(),
  status: z.enum(TASK_STATUSES),
  definition_of_done: z.string(),
  depends_on: z.array(z.string()),
  blocked_by: z.array(z.string()),
  lock: z.object({ held: z.boolean(), instance_id: nullableString, renewed_at: nullableString }),
  stale: z.boolean(),
  reason: nullableString,
});

const handoff = z.object({
  from_task_id: z.string(),
  to_task_id: z.string(),
  from: nullableString,
  handoff_notes: z.string(),
  created_at: z.string(),
});

/** A manifest entry: how to read a file, never its body. */
const fileRef = z.object({
  path: z.string(),
  file_id: z.string(),
  version: z.number().int(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  status: z.enum(['ready', 'quarantined']),
  read_with: z.enum(['read_file', 'fetch_file']),
});

/** Whether a workspace is set; its location only for a room admin's agent (read_with names the tool for the rest). */
const workspace = z.object({
  configured: z.boolean(),
  local_path: nullableString.optional(),
  repo_url: nullableString.optional(),
  repo_branch: nullableString.optional(),
  read_with: nullableString.optional(),
});

const reservationRef = z.object({
  reservation_id: z.string(),
  holder: z.string(),
  pattern: z.string(),
  exclusive: z.boolean(),
  task_id: nullableString,
  expires_at: z.string(),
});

/**
 * get_room_context: `{not_modified, context_version}`, or a snapshot (`full` true) or a delta
 * (`full` false, with `since_version` and `changed`) holding the sections of the changed classes.
 */
export const roomContextOutput = z.object({
  not_modified: z.boolean().optional(),
  context_version: z.number().int(),
  full: z.boolean().optional(),
  since_version: z.number().int().optional(),
  changed: z.array(z.string()).optional(),
  focus: focusRecord.optional(),
  roster: roster.optional(),
  my_tasks: z.array(myTask).optional(),
  handoff: handoff.nullable().optional(),
  decisions: z.array(decisionRecord).optional(),
  files: z.array(fileRef).optional(),
  files_total: z.number().int().optional(),
  files_next_cursor: nullableString.optional(),
  workspace: workspace.optional(),
  reservations: z.array(reservationRef).optional(),
  cursors: z.object({ messages_seq: z.number().int().optional(), board_version: z.number().int().optional() }).optional(),
});
