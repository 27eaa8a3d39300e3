import { z } from 'zod';
import { endpoint } from './contract.js';
import { CORE_EVENT_TYPES } from '../core-events.js';

/** The window's live updates (docs/contract.md "Live events"). */

export const events = {
  /**
   * A transport route (docs/architecture.md "Transport routes"): server-sent events, each named by
   * its `type`, for as long as the window listens. A browser authorises it with a one-use ticket on
   * the URL (owners.eventsTicket: EventSource sends no header); other clients send a credential.
   * Each item is a core event as shared/core-events.ts `WireEvent` says; a stream closed for a slow
   * reader ends with `stream.closed` (`{reason, detail}` as its data).
   */
  stream: endpoint({
    method: 'GET',
    path: '/v1/events',
    summary: 'Every change the signed-in owner may see, as server-sent events.',
    query: z.object({ ticket: z.string().optional() }),
    output: z.object({ type: z.union([z.enum(CORE_EVENT_TYPES), z.literal('stream.closed')]), room: z.string().optional(), data: z.unknown() }),
    answer: 'stream',
  }),
};
