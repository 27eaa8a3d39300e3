import type { Migration } from '../migrate.js';

/**
 * Fewer pages per write (docs/performance.md, "Fewer pages and fewer reads per message"):
 *
 * - Messages are indexed for search in batches, not by a trigger in each message's own
 *   transaction: `search_progress` holds the rowid of the last message indexed, the indexer
 *   (search/indexer.ts) indexes the ones after it, and a search indexes whatever is still
 *   pending before it reads. Every message already here was indexed by the old trigger.
 *   Should a message be deleted, the mark never stays above the newest remaining rowid, so a
 *   rowid SQLite hands out again is indexed too.
 * - The wakes' indexes keyed on status become partial, as every query that needs them names
 *   the status: running wakes (a few at any time) have `wakes_running`, queued ones the
 *   existing `wakes_queued`; an agent's wake log is read through `wakes_by_plate`, newest first.
 *   A queued wake now writes five index entries instead of seven.
 */
export const migration0011: Migration = {
  version: 11,
  name: '0011-write-path',
  up(db) {
    db.exec(`
      CREATE TABLE search_progress (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        messages_rowid INTEGER NOT NULL
      ) STRICT;
      INSERT INTO search_progress (id, messages_rowid) SELECT 1, COALESCE(MAX(rowid), 0) FROM messages;
      DROP TRIGGER search_messages_ai;
      DROP TRIGGER search_messages_ad;
      CREATE TRIGGER search_messages_ad AFTER DELETE ON messages BEGIN
        DELETE FROM search_fts WHERE rowid = old.rowid * 8 + 1;
        UPDATE search_progress SET messages_rowid = (SELECT COALESCE(MAX(rowid), 0) FROM messages)
          WHERE messages_rowid > (SELECT COALESCE(MAX(rowid), 0) FROM messages);
      END;

      DROP INDEX wakes_running_key;
      DROP INDEX wakes_by_status;
      DROP INDEX wakes_by_queue;
      CREATE INDEX wakes_running ON wakes(instance_id, room_id) WHERE status = 'running';
      CREATE INDEX wakes_by_plate ON wakes(plate, seq);
    `);
  },
};
