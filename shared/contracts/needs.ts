import { z } from 'zod';
import { endpoint } from './contract.js';
import { humanTask } from './tasks.js';
import { humanWake } from '../schemas/wakes.js';
import { dismissNeedInput, needDismissal, needItem, restoreNeedOutput } from '../schemas/needs.js';

/** The Needs you endpoints (docs/needs-you.md): what waits on the signed-in human, dismissing and restoring, reading mentions. */

/** An item as /v1 lists it: its wake and task say what the caller may do with them (its buttons follow). */
export const humanNeedItem = needItem.extend({ wake: humanWake.optional(), task: humanTask.optional() });

export const needsQuery = z.object({
  room: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

export const dismissedQuery = z.object({ limit: z.coerce.number().int().min(1).max(200).optional() });

/** The caller read the room up to this message. */
export const acknowledgeBody = z.object({ seq: z.number().int().min(0) });

export const needs = {
  list: endpoint({
    method: 'GET',
    path: '/v1/needs-you',
    summary: 'What waits on the caller across its rooms, newest first, and how many invitations wait.',
    query: needsQuery,
    output: z.object({ items: z.array(humanNeedItem), truncated: z.boolean(), count: z.number().int(), invitations: z.number().int() }),
  }),
  dismiss: endpoint({
    method: 'POST',
    path: '/v1/needs-you/dismissals',
    summary: 'Dismisses one item for the caller, until restored.',
    body: dismissNeedInput,
    output: needDismissal,
    status: 201,
  }),
  restore: endpoint({
    method: 'DELETE',
    path: '/v1/needs-you/dismissals/:kind/:ref',
    summary: 'Undoes a dismissal: the item is back if it still waits.',
    output: restoreNeedOutput,
  }),
  acknowledge: endpoint({
    method: 'POST',
    path: '/v1/rooms/:id/mentions/acknowledge',
    summary: 'The caller read the room up to a message: its mentions there leave Needs you.',
    body: acknowledgeBody,
    output: z.object({ acknowledged: z.number().int() }),
  }),
  dismissed: endpoint({
    method: 'GET',
    path: '/v1/needs-you/dismissed',
    summary: 'The caller’s latest dismissals with the records they name, to restore from.',
    query: dismissedQuery,
    output: z.object({ items: z.array(humanNeedItem), truncated: z.boolean() }),
  }),
};
