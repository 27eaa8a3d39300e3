import type Database from 'better-sqlite3';
import type { Migration } from '../migrate.js';
import { rebuildTable } from './rebuild.js';

/**
 * Wakes you can leave running (docs/wakes.md): every wake's `chain_depth` (the loop guard),
 * the statuses `held` (loop guard or budget, until a human releases or drops it) and `merged`
 * (coalesced into another wake), a retry's `retry_of`, the usage a run reported, and the
 * runner's `coalesce` switch, and a task lease whose holder is gone (`lease_gone_at`). The budget counts started wakes per agent in the last hour
 * from `started_at`, so its windows are stored and survive restarts; an index keeps that
 * count independent of the wake log's length.
 */
export const migration0010: Migration = {
  version: 10,
  name: '0010-wake-limits',
  up(db) {
    extendWakeStatuses(db, ['held', 'merged']);
    db.exec(`
      ALTER TABLE wakes ADD COLUMN chain_depth INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wakes ADD COLUMN released_at INTEGER;
      ALTER TABLE wakes ADD COLUMN released_by TEXT;
      ALTER TABLE wakes ADD COLUMN merged_into TEXT;
      ALTER TABLE wakes ADD COLUMN message_ids TEXT;
      ALTER TABLE wakes ADD COLUMN retry_of TEXT;
      ALTER TABLE wakes ADD COLUMN usage_input_tokens INTEGER;
      ALTER TABLE wakes ADD COLUMN usage_output_tokens INTEGER;
      ALTER TABLE wakes ADD COLUMN usage_cache_read_tokens INTEGER;
      ALTER TABLE wakes ADD COLUMN usage_cost_usd REAL;
      ALTER TABLE wakes ADD COLUMN usage_model TEXT;
      ALTER TABLE runners ADD COLUMN coalesce INTEGER NOT NULL DEFAULT 0;
      -- The lease holder of a doing task is gone (its run ended, its session closed): stale at once.
      ALTER TABLE tasks ADD COLUMN lease_gone_at INTEGER;
      -- A failed task's copy (POST …/tasks/:taskId/retry): at most one per failed task.
      ALTER TABLE tasks ADD COLUMN retry_of TEXT REFERENCES tasks(id);
      CREATE UNIQUE INDEX tasks_retry_of ON tasks(retry_of) WHERE retry_of IS NOT NULL;
      CREATE INDEX wakes_started_by_plate ON wakes(plate, started_at) WHERE started_at IS NOT NULL;
      CREATE INDEX wakes_held ON wakes(plate, seq) WHERE status = 'held';
      -- The dispatcher's full pass (pull-parked included) reads queued wakes only: held and
      -- ended ones, however many, stay out of it.
      CREATE INDEX wakes_queued ON wakes(plate, room_id, seq) WHERE status = 'queued';
    `);
  },
};

/**
 * SQLite cannot change a CHECK constraint in place: the wakes table is rebuilt from its own
 * stored definition (as 0007 does for the triggers), keeping every column, index and the
 * AUTOINCREMENT counter.
 */
function extendWakeStatuses(db: Database.Database, statuses: string[]): void {
  const table = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'wakes'").get() as { sql: string };
  const check = /CHECK \(status IN \(([^)]*)\)\)/;
  const m = check.exec(table.sql);
  if (!m) throw new Error('wakes.status has no CHECK list to extend');
  const missing = statuses.filter((s) => !m[1]!.includes(`'${s}'`));
  if (missing.length === 0) return;
  const list = [m[1], ...missing.map((s) => `'${s}'`)].join(', ');
  rebuildTable(db, 'wakes', (sql) => sql.replace(check, `CHECK (status IN (${list}))`), { keepCounter: true });
}
