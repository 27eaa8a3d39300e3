import type { Migration } from '../migrate.js';

/**
 * A message whose mentions only park (each mentioned agent gets an inbox item and, at most, a
 * wake parked for pull: nothing can take it now) is answered once the message itself is
 * committed; those rows are written in the next write transaction of the same event-loop turn
 * (docs/performance.md, "Deliveries written behind the answer"). `parked` holds, as JSON, the
 * rows that message planned, with the ids its answer reported, so that a process that stops in
 * between writes them when it starts again (messages/parked.ts). NULL for every other message.
 */
export const migration0017: Migration = {
  version: 17,
  name: '0017-parked-deliveries',
  up(db) {
    db.exec('ALTER TABLE messages ADD COLUMN parked TEXT');
  },
};
