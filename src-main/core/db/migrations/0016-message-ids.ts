import type { Migration } from '../migrate.js';
import { rebuildTable, replacing } from './rebuild.js';

/**
 * A message's id carries its row too (docs/performance.md, "Ids that carry their row"), as a
 * wake's and an inbox item's do since 0015: ids minted from now on name the message's rowid
 * (`seqId`), so the table keeps no unique index of its ids, one b-tree less in every commit that
 * writes a message. Ids minted before map through `message_legacy_ids` (id to rowid), read first.
 *
 * Two references to `messages(id)` were foreign keys (a reply's `parent_id`, an inbox item's
 * `message_id`), and a foreign key needs that unique index. Both are written by the server only,
 * from a message it has just looked up or written in the same transaction, and no message is
 * ever deleted, so the server's own check (a reply's parent must be a message of the room) is
 * what stands; they become plain columns, as a wake's `message_id` always was. Rows keep their
 * rowid: the search index keys messages by it.
 */
export const migration0016: Migration = {
  version: 16,
  name: '0016-message-ids',
  up(db) {
    db.exec('CREATE TABLE message_legacy_ids (id TEXT PRIMARY KEY, row INTEGER NOT NULL) STRICT, WITHOUT ROWID');
    db.exec('INSERT INTO message_legacy_ids (id, row) SELECT id, rowid FROM messages');
    // The inbox first: dropping the old messages table must leave no row of another table referring to it.
    rebuildTable(db, 'mentions', replacing('mentions', ['message_id TEXT REFERENCES messages(id)', 'message_id TEXT']));
    // Dropping the old table deletes its rows one by one, each checked for replies to it (the
    // foreign key on parent_id, on while migrations run): without an index that is a scan of the
    // table per row, quadratic (500,000 messages took over ten minutes). It goes with the table.
    db.exec('CREATE INDEX messages_parent_drop ON messages(parent_id)');
    rebuildTable(
      db,
      'messages',
      replacing('messages', ['id TEXT PRIMARY KEY', 'id TEXT NOT NULL'], ['parent_id TEXT REFERENCES messages(id)', 'parent_id TEXT']),
      { keepRowid: true, dropIndexes: ['messages_parent_drop'] },
    );
  },
};
