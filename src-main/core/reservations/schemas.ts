import { z } from 'zod';
import { TTL_MAX_S } from './service.js';
import { listReservationsOutput, reservationConflict, reservationRecord } from '../../../shared/schemas/reservations.js';

// ---- arguments ----

const roomArg = z.string().min(1).max(200);
const patternArg = z.string().min(1).max(512);
const patternsArg = z.array(patternArg).min(1).max(50);
const idsArg = z.array(z.string().min(1).max(200)).min(1).max(100);
const ttlArg = z.number().int().min(1).max(TTL_MAX_S).describe('Seconds, server time');

export const reservePathsInput = z.object({
  room: roomArg,
  paths: patternsArg.describe('Repository-relative globs'),
  exclusive: z.boolean().optional().describe('false = shared'),
  ttl_s: ttlArg.optional(),
  reason: z.string().max(500).optional(),
  task_id: z.string().min(1).max(200).optional().describe('Your task these edits belong to'),
  wait: z.boolean().optional().describe('Queue behind holders instead of failing'),
});

export const releasePathsInput = z.object({ room: roomArg, reservation_ids: idsArg.optional(), paths: patternsArg.optional() });

export const renewPathsInput = z.object({ room: roomArg, reservation_ids: idsArg, ttl_s: ttlArg });

export const listReservationsInput = z.object({ room: roomArg, path: patternArg.optional().describe('A repository path to check') });

// The /v1 bodies (the force-release, the guard's question) are the contracts' (shared/contracts/reservations.ts).

// ---- results ----

// The reservation record, its conflicts and the list are in shared/schemas/reservations.ts (the UI derives its types from them).
const reservation = reservationRecord;

/** Granted, or (with wait) queued behind the conflicts. */
export const reservePathsOutput = z.object({
  granted: z.boolean(),
  queued: z.boolean().optional(),
  request_id: z.string().optional(),
  reservations: z.array(reservation),
  conflicts: z.array(reservationConflict).optional(),
  context_version: z.number().int(),
});

export const releasePathsOutput = z.object({ released: z.array(z.string()), context_version: z.number().int() });

export const renewPathsOutput = z.object({ reservations: z.array(reservation) });

export { listReservationsOutput };
