import type { Core } from '../core.js';
import { defineUseCase } from '../usecase/define.js';
import { listWakes, type WakeRow } from '../wakes/store.js';
import { wakeFor } from '../wakes/present.js';
import { mentionWakeOf } from '../wakes/outcome.js';
import type { messageDeliveries as deliveriesSchema } from '../../../shared/schemas/deliveries.js';
import { contracts } from '../../../shared/contracts/index.js';
import type { z } from 'zod';
import { getMessage } from './service.js';

/**
 * What became of each agent the window's latest messages mention (docs/ui.md "Wake status per
 * message"): per message and agent, the mention's status as the message response said it (a
 * wake parked for pull, or one that was never queued, is `inbox` with its reason, not "queued")
 * and the wake itself as its reader may see it. Bounded: at most MESSAGE_DELIVERY_IDS messages
 * (each one lookup by id) against the room's latest DELIVERY_WAKES wakes (one indexed page); a
 * message older than that page is left out rather than guessed.
 */

/** Messages asked about in one request. */
export const MESSAGE_DELIVERY_IDS = 100;
/** The room's latest wakes the answer is made from. */
export const DELIVERY_WAKES = 500;

type Deliveries = z.input<typeof deliveriesSchema>;

export function messageDeliveries(core: Core, viewerOwnerId: string, roomId: string, ids: readonly string[]): Deliveries {
  const { db } = core;
  const page = listWakes(db, { roomId, limit: DELIVERY_WAKES + 1 });
  const full = page.length > DELIVERY_WAKES;
  const rows = full ? page.slice(0, DELIVERY_WAKES) : page;
  // Newest first: the first wake seen for a message and agent is its latest (a retry after its original).
  const latest = new Map<string, WakeRow>();
  for (const w of rows) {
    if (!w.message_id) continue;
    const k = `${w.message_id} ${w.plate}`;
    if (!latest.has(k)) latest.set(k, w);
  }
  const coveredFrom = full ? rows[rows.length - 1]!.created_at : null;
  const out: Deliveries['messages'] = [];
  for (const id of new Set(ids)) {
    const m = getMessage(db, id);
    if (!m || m.room !== roomId) continue;
    const agents = m.mentions.filter((t) => t.kind === 'agent' && t.plate && t.plate !== m.sender.plate);
    if (!agents.length) continue;
    if (coveredFrom !== null && Date.parse(m.created_at) < coveredFrom) continue;
    const wakes = agents.map((t) => {
      const w = latest.get(`${m.message_id} ${t.plate}`);
      const status = mentionWakeOf(core, roomId, { plate: t.plate!, handle: t.handle }, m.sender.owner_id, w);
      // The wake as its reader may see it (wakes/present.ts): no output tails nor a cause quoting them for anyone but its owner.
      return { ...status, wake: w ? wakeFor(db, viewerOwnerId, w) : null };
    });
    out.push({ message_id: m.message_id, wakes });
  }
  return { messages: out, covered_from: coveredFrom === null ? '' : new Date(coveredFrom).toISOString() };
}

/** GET /v1/rooms/:id/deliveries?message_ids=a,b: what became of each agent those messages mention. */
export const messageDeliveriesUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.wakes.deliveries },
  handler: ({ core, caller }, { params, query }) => {
    const ids = query.message_ids
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .slice(0, MESSAGE_DELIVERY_IDS);
    return messageDeliveries(core, caller.ownerId, params.id, ids);
  },
});
