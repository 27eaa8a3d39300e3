import { z } from 'zod';

/**
 * A room's durable context set by humans (the current focus and the decisions), declared once:
 * get_room_context's `focus` and `decisions` and the /v1/rooms/:id/focus and /decisions routes
 * use these schemas; context/service.ts's records are their `z.output`.
 */

/**
 * One nullable string schema for every nullable field of get_room_context's result (context/schemas.ts
 * builds the rest of it from this one too): the listing shows it once, as a shared definition.
 */
export const nullableString = z.string().nullable();

/** The room's current focus; all null when none is set. */
export const focusRecord = z.object({ focus: nullableString, set_by: nullableString, updated_at: nullableString });

/** A durable decision: its words and the owner who recorded it. */
export const decisionRecord = z.object({ decision_id: z.string(), text: z.string(), created_by: z.string(), created_at: z.string() });

/** GET and PUT /v1/rooms/:id/focus: the focus, with its room. */
export const roomFocus = focusRecord.extend({ room: z.string() });

/** POST /v1/rooms/:id/decisions (201): the decision recorded, with its room. */
export const roomDecision = decisionRecord.extend({ room: z.string() });

/** GET /v1/rooms/:id/decisions?limit=: the newest `limit` decisions, oldest first. */
export const roomDecisions = z.object({ room: z.string(), decisions: z.array(decisionRecord) });

// ---- the window's requests (shared/contracts/context.ts) ----------------------------------------

/** The longest focus and decision, after trimming (context/service.ts checks them). */
export const FOCUS_MAX = 4000;
export const DECISION_MAX = 4000;

/** PUT /v1/rooms/:id/focus: an empty focus clears it (the service trims and checks FOCUS_MAX). */
export const focusBody = z.object({ focus: z.string().max(FOCUS_MAX * 2) });

/** POST /v1/rooms/:id/decisions (the service trims and checks DECISION_MAX). */
export const decisionBody = z.object({ text: z.string().min(1).max(DECISION_MAX * 2) });

/** GET /v1/rooms/:id/decisions: the newest `limit` (default all, up to 1,000). */
export const decisionsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() });
