import { z } from 'zod';
import { mentionWake } from './messages.js';
import { humanWake } from './wakes.js';

/**
 * An owner's test wakes (docs/wakes.md "Test wakes"): `doctor --wake` and the connect dialog's
 * live test mention one of the owner's agents in the owner's private "Test wakes" room, never in
 * a working room; Settings lists the recent ones with their outcome.
 */

/** Where the test comes from: the words of the test message differ, nothing else. */
export const testWakeFrom = z.enum(['doctor', 'connect']);

/** POST /v1/test-wakes: which of the caller's agents to wake. */
export const testWakeBody = z.strictObject({
  plate: z.string().min(1).max(100),
  from: testWakeFrom.optional(),
});

/** What POST /v1/test-wakes answers: the room and message of the test, and what became of the mention. */
export const testWakeStarted = z.object({
  room_id: z.string(),
  room_name: z.string(),
  message_id: z.string(),
  wake: mentionWake,
});

/** GET /v1/test-wakes: the owner's test room (null before the first test) and its newest wakes, each with its agent's handle and the acts allowed on it. */
export const testWakeList = z.object({
  room_id: z.string().nullable(),
  wakes: z.array(humanWake),
});

export const testWakeQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).optional(),
});
