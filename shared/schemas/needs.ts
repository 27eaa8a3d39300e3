import { z } from 'zod';
import { wakeRecord } from './wakes.js';
import { taskRecord } from './tasks.js';
import { messageRecord } from './messages.js';

/**
 * Needs you's records (docs/needs-you.md), declared once; shared/api-types.ts derives the UI's
 * types. An item's kind and `ref` (the id of the wake, task or message it points at) name it.
 */
export const needKind = z.enum(['agent_stalled', 'wake_failed', 'wake_held', 'task_failed', 'task_blocked', 'lease_stale', 'blocked_by_failed', 'mention']);

/** What the window offers for an item; the server checks the right when it is taken. */
export const needAction = z.enum(['stop', 'retry', 'release', 'reassign', 'open']);

/**
 * One item as the server finds it (needs/service.ts `NeedItem`): what waits, where, since when,
 * and the wake, task or message it points at. The /v1 lists add what the caller may do with its
 * wake and task (shared/contracts/needs.ts).
 */
export const needItem = z.object({
  kind: needKind,
  room: z.object({ room_id: z.string(), name: z.string() }),
  action: needAction,
  at: z.string(),
  /** The id of what the item points at (a wake, a task or a message): with `kind`, the key a dismissal names. */
  ref: z.string(),
  wake: wakeRecord.extend({ handle: z.string() }).optional(),
  task: taskRecord.optional(),
  /** For `blocked_by_failed`: the failed prerequisite's id. */
  failed_dep: z.string().optional(),
  message: messageRecord.optional(),
  /** In the Dismissed list: when the owner dismissed it. */
  dismissed_at: z.string().optional(),
});

/** POST /v1/needs-you/dismissals: the owner dismisses one item (stored per owner, undone by DELETE). */
export const dismissNeedInput = z.object({ kind: needKind, ref: z.string().min(1).max(100) });
export const needDismissal = z.object({ kind: needKind, ref: z.string(), dismissed_at: z.string() });

/** DELETE /v1/needs-you/dismissals/:kind/:ref: the item is back if it still waits. */
export const restoreNeedOutput = z.object({ restored: z.boolean() });
