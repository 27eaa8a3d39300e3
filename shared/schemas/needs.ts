import { z } from 'zod';

/**
 * Needs you's records (docs/needs-you.md), declared once; shared/api-types.ts derives the UI's
 * types. An item's kind and `ref` (the id of the wake, task or message it points at) name it.
 */
export const needKind = z.enum(['agent_stalled', 'wake_failed', 'wake_held', 'task_failed', 'task_blocked', 'lease_stale', 'blocked_by_failed', 'mention']);

/** POST /v1/needs-you/dismissals: the owner dismisses one item (stored per owner, undone by DELETE). */
export const dismissNeedInput = z.object({ kind: needKind, ref: z.string().min(1).max(100) });
export const needDismissal = z.object({ kind: needKind, ref: z.string(), dismissed_at: z.string() });

/** DELETE /v1/needs-you/dismissals/:kind/:ref: the item is back if it still waits. */
export const restoreNeedOutput = z.object({ restored: z.boolean() });
