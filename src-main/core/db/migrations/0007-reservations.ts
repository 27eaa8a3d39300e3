import type Database from 'better-sqlite3';
import type { Migration } from '../migrate.js';
import { rebuildTable } from './rebuild.js';

/**
 * Path reservations (issue 19): advisory leases on repository paths or globs, the queue of
 * agents waiting for them (`state = 'waiting'`), and the record of how each one ended
 * (released, force-released with a reason, expired, its task ended). The wake queue learns
 * the `paths_free` trigger.
 */
export const migration0007: Migration = {
  version: 7,
  name: '0007-reservations',
  up(db) {
    db.exec(`
      CREATE TABLE path_reservations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        -- One reserve_paths call: its patterns are granted together or not at all.
        request_id TEXT NOT NULL,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        plate TEXT NOT NULL REFERENCES agents(plate),
        pattern TEXT NOT NULL,
        exclusive INTEGER NOT NULL CHECK (exclusive IN (0, 1)),
        reason TEXT,
        task_id TEXT REFERENCES tasks(id),
        state TEXT NOT NULL CHECK (state IN ('waiting', 'active')),
        ttl_ms INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        granted_at INTEGER,
        -- Server time: an active hold ends here; a waiting request gives up here.
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX path_reservations_by_room ON path_reservations(room_id, state, seq);
      CREATE INDEX path_reservations_by_expiry ON path_reservations(expires_at);
      CREATE INDEX path_reservations_by_task ON path_reservations(task_id) WHERE task_id IS NOT NULL;
      CREATE INDEX path_reservations_by_request ON path_reservations(request_id);

      CREATE TABLE reservation_releases (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        reservation_id TEXT NOT NULL,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        plate TEXT NOT NULL,
        pattern TEXT NOT NULL,
        task_id TEXT,
        cause TEXT NOT NULL CHECK (cause IN ('released', 'force_released', 'expired', 'task_ended', 'holder_left', 'wait_cancelled', 'wait_expired')),
        by_kind TEXT NOT NULL CHECK (by_kind IN ('agent', 'human', 'server')),
        by_id TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX reservation_releases_by_room ON reservation_releases(room_id, seq);
    `);
    addWakeTrigger(db, 'paths_free');
  },
};

/**
 * SQLite cannot change a CHECK constraint in place, so the wakes table is rebuilt from its
 * own stored definition (the documented 12-step way): columns other migrations added are
 * kept whatever order the migrations land in, and so are its indexes and AUTOINCREMENT
 * counter.
 */
function addWakeTrigger(db: Database.Database, trigger: string): void {
  const table = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'wakes'").get() as { sql: string };
  const check = /CHECK \(trigger IN \(([^)]*)\)\)/;
  const m = check.exec(table.sql);
  if (!m) throw new Error('wakes.trigger has no CHECK list to extend');
  if (m[1]!.includes(`'${trigger}'`)) return;
  rebuildTable(db, 'wakes', (sql) => sql.replace(check, `CHECK (trigger IN (${m[1]}, '${trigger}'))`), { keepCounter: true });
}
