import type { Migration } from '../migrate.js';

/**
 * When a room's messages last changed, on the room's row (docs/performance.md, "No change row per
 * message"): every message wrote a `messages` row into `room_changes` next to the update of the
 * room's row that takes its seq, one more page per message. The context needs only the newest
 * such version (did messages change since the caller's version?), which the same update of the
 * room's row now keeps in `messages_version`. The log keeps the other classes.
 */
export const migration0013: Migration = {
  version: 13,
  name: '0013-messages-version',
  up(db) {
    db.exec(`
      ALTER TABLE rooms ADD COLUMN messages_version INTEGER NOT NULL DEFAULT 0;
      UPDATE rooms SET messages_version = COALESCE((SELECT MAX(version) FROM room_changes WHERE room_id = rooms.id AND class = 'messages'), 0);
      DELETE FROM room_changes WHERE class = 'messages';
    `);
  },
};
