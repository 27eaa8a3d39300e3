import type { Migration } from '../migrate.js';
import { rebuildTable, replacing } from './rebuild.js';

/**
 * Ids that carry their row (docs/performance.md, "Ids that carry their row"): a wake's and an
 * inbox item's id is minted from its seq from now on (`seqId`), so neither table keeps a unique
 * index of its ids: one b-tree less each in every commit that writes a mention. The ids minted
 * before stay valid: each table's older ids go to a small side table (`wake_legacy_ids`,
 * `mention_legacy_ids`, id to seq) that a lookup by id reads first, and that never grows again.
 */
export const migration0015: Migration = {
  version: 15,
  name: '0015-seq-ids',
  up(db) {
    for (const [table, legacy] of [
      ['wakes', 'wake_legacy_ids'],
      ['mentions', 'mention_legacy_ids'],
    ] as const) {
      db.exec(`CREATE TABLE ${legacy} (id TEXT PRIMARY KEY, seq INTEGER NOT NULL) STRICT, WITHOUT ROWID`);
      db.exec(`INSERT INTO ${legacy} (id, seq) SELECT id, seq FROM ${table}`);
      rebuildTable(db, table, replacing(table, ['id TEXT NOT NULL UNIQUE', 'id TEXT NOT NULL']));
    }
  },
};
