import type { Migration } from '../migrate.js';

/**
 * The room's change log keyed by its primary key alone (docs/performance.md, "One page less per
 * message"): `room_changes` was a rowid table with a separate index for its key (room, version,
 * class), so every context change (each message is one) wrote a page of each. As a WITHOUT ROWID
 * table the key is the table: one page per change, the same rows, the same lookups (every query
 * names the room first).
 */
export const migration0012: Migration = {
  version: 12,
  name: '0012-room-changes',
  up(db) {
    db.exec(`
      CREATE TABLE room_changes_new (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        version INTEGER NOT NULL,
        class TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, version, class)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO room_changes_new (room_id, version, class, created_at) SELECT room_id, version, class, created_at FROM room_changes;
      DROP TABLE room_changes;
      ALTER TABLE room_changes_new RENAME TO room_changes;
    `);
  },
};
