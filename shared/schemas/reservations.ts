import { z } from 'zod';

/**
 * The reservation records, declared once: list_reservations' result and GET
 * /v1/rooms/:id/reservations' response use these schemas, and shared/api-types.ts derives the
 * UI's types from them (`z.output`), importing types only (docs/architecture.md, "Use cases").
 */

/** A path reservation: who holds (or waits for) which repository glob, until when, for which task. */
export const reservationRecord = z.object({
  reservation_id: z.string(),
  room: z.string(),
  holder: z.string(),
  plate: z.string(),
  pattern: z.string(),
  exclusive: z.boolean(),
  reason: z.string().nullable(),
  task_id: z.string().nullable(),
  state: z.enum(['waiting', 'active']),
  created_at: z.string(),
  granted_at: z.string().nullable(),
  expires_at: z.string(),
});

/**
 * A holder in the way of a reservation request (reservations/service.ts `ConflictDto`): reserve_paths'
 * `conflicts` when it queued (wait), and its CONFLICT error's `details.conflicts` otherwise.
 * `pattern` is the one asked for, `held_pattern` the holder's.
 */
export const reservationConflict = z.object({
  pattern: z.string(),
  holder: z.string(),
  plate: z.string(),
  held_pattern: z.string(),
  exclusive: z.boolean(),
  expires_at: z.string(),
  reservation_id: z.string(),
  task_id: z.string().nullable(),
});

/** How a reservation ended (reservations/service.ts `ReleaseRecordDto`); a force-release keeps the human's reason. */
export const reservationRelease = z.object({
  reservation_id: z.string(),
  holder: z.string(),
  plate: z.string(),
  pattern: z.string(),
  task_id: z.string().nullable(),
  cause: z.enum(['released', 'force_released', 'expired', 'task_ended', 'holder_left', 'wait_cancelled', 'wait_expired']),
  by_kind: z.enum(['agent', 'human', 'server']),
  by: z.string().nullable(),
  reason: z.string().nullable(),
  at: z.string(),
});

/** list_reservations: the live and waiting reservations, narrowed to one path when asked. */
export const listReservationsOutput = z.object({
  reservations: z.array(reservationRecord),
  waiting: z.array(reservationRecord),
  path: z.string().optional(),
  context_version: z.number().int(),
});

/** GET /v1/rooms/:id/reservations: the whole list, the recent releases and whether the owner may force-release. */
export const roomReservationsRecord = listReservationsOutput.omit({ path: true }).extend({
  released: z.array(reservationRelease),
  can_force_release: z.boolean(),
});

// ---- the window's and the guard's requests (shared/contracts/reservations.ts) ----------------

/** Characters of a concrete path (the guard's staged paths, list_reservations path=; reservations/rules.ts checks it too). */
export const PATH_MAX_CHARS = 4096;

/** Paths per guard request; the hook sends a large commit in batches. */
export const GUARD_PATHS_MAX = 2000;

/** POST /v1/rooms/:id/reservations/:reservationId/release: a force-release keeps its reason. */
export const forceReleaseBody = z.object({ reason: z.string().min(1).max(500) });

/** POST /v1/rooms/:id/reservations/check: the paths a commit touches, and the plate the hook read from its environment. */
export const guardCheckBody = z.object({
  paths: z.array(z.string().min(1).max(PATH_MAX_CHARS)).max(GUARD_PATHS_MAX),
  plate: z.string().min(1).max(64).optional(),
});

/** A staged path another agent holds exclusively: who, under which pattern, until when (reservations/service.ts `GuardHit`). */
export const guardHit = z.object({
  path: z.string(),
  holder: z.string(),
  plate: z.string(),
  pattern: z.string(),
  expires_at: z.string(),
  task_id: z.string().nullable(),
});

/**
 * The guard's answer: `ok` when no path is held. An authenticated committer (an agent credential)
 * is told each holder and pattern; anyone else only which paths are reserved.
 */
export const guardCheckAnswer = z.object({
  ok: z.boolean(),
  committer: z.string().nullable(),
  authenticated: z.boolean(),
  conflicts: z.array(z.union([guardHit, z.object({ path: z.string() })])),
});
