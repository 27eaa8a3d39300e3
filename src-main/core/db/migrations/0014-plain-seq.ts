import type { Migration } from '../migrate.js';
import { rebuildTable } from './rebuild.js';

/**
 * Two pages less per mention (docs/performance.md, "Two pages less per mention"):
 *
 * - `mentions.seq` and `wakes.seq` are plain INTEGER PRIMARY KEYs, no longer AUTOINCREMENT.
 *   AUTOINCREMENT keeps a counter row in `sqlite_sequence`, read and written by every insert: one
 *   more page in each commit that writes a mention or a wake. Without it SQLite takes the largest
 *   seq plus one, the same number, since no row of either table is ever deleted (a test checks
 *   that no code does): seq stays a cursor that only grows.
 * - A wake's event key is unique per agent only for events other than a message's mention
 *   (`wakes_event`, partial): a message wakes each mentioned agent once by construction (its
 *   targets are deduplicated, a replay answers from the idempotency record), so the mention wake,
 *   the commonest of all, no longer writes an entry in a unique index it cannot conflict in.
 *   Retries, assignments, successors and freed paths keep the guarantee.
 */
export const migration0014: Migration = {
  version: 14,
  name: '0014-plain-seq',
  up(db) {
    const plainSeq = (sql: string) => {
      const out = sql.replace('seq INTEGER PRIMARY KEY AUTOINCREMENT', 'seq INTEGER PRIMARY KEY');
      if (out === sql) throw new Error('no AUTOINCREMENT seq to make plain');
      return out;
    };
    rebuildTable(db, 'mentions', plainSeq);
    rebuildTable(db, 'wakes', (sql) => {
      const out = plainSeq(sql).replace(/,\s*UNIQUE \(plate, event_key\)/, '');
      if (out.includes('UNIQUE (plate, event_key)') || out === plainSeq(sql)) throw new Error('wakes has no (plate, event_key) constraint to replace');
      return out;
    });
    db.exec(`CREATE UNIQUE INDEX wakes_event ON wakes(plate, event_key) WHERE event_key NOT GLOB 'msg:*'`);
  },
};
