import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';
import { createOwner } from '../../src-main/core/owners/store.js';
import { EVENTS_TICKETS_PER_OWNER, createEventsTicket, redeemEventsTicket } from '../../src-main/core/owners/login.js';

/**
 * Issue 47, INFO (docs/security.md item 19): event-stream tickets had no per-owner cap, so one owner
 * asking POST /v1/events/ticket in a loop grew the server's ticket map without bound for a minute at
 * a time. Now an owner holds at most EVENTS_TICKETS_PER_OWNER live tickets: a new one gives up that
 * owner's oldest, and never another owner's.
 */
describe('security: event-stream tickets are bounded per owner', () => {
  let m: MemoryCore;
  beforeEach(() => (m = openMemoryCore()));
  afterEach(() => m.close());

  it('an owner asking for 5,000 tickets keeps only the newest few; another owner’s ticket still opens her stream', () => {
    const ada = createOwner(m.core.db, { name: 'Ada Owner', isPrimary: true }).owner;
    const mallory = createOwner(m.core.db, { name: 'Mallory', isPrimary: false }).owner;
    const adas = createEventsTicket(m.core.db, ada.owner_id).ticket;
    const flood: string[] = [];
    for (let i = 0; i < 5000; i++) flood.push(createEventsTicket(m.core.db, mallory.owner_id).ticket);
    // Her oldest tickets were given up as she asked for more; her newest still work, once each.
    expect(redeemEventsTicket(m.core.db, flood[0]!)).toBeUndefined();
    expect(redeemEventsTicket(m.core.db, flood[flood.length - EVENTS_TICKETS_PER_OWNER - 1]!)).toBeUndefined();
    const kept = flood.slice(-EVENTS_TICKETS_PER_OWNER).filter((t) => redeemEventsTicket(m.core.db, t)?.owner.owner_id === mallory.owner_id);
    expect(kept).toHaveLength(EVENTS_TICKETS_PER_OWNER);
    expect(redeemEventsTicket(m.core.db, flood[flood.length - 1]!)).toBeUndefined();
    // Ada's ticket, asked before the flood, is still hers.
    expect(redeemEventsTicket(m.core.db, adas)?.owner.owner_id).toBe(ada.owner_id);
  });
});
