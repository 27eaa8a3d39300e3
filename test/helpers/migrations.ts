import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';

/**
 * Where a migration's test starts: a database in memory (foreign keys on) migrated up to
 * `version`, holding the primary owner Ada (`own_1`) and her room Main (`room_1`).
 */
export function migratedTo(version: number): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  expect(migrate(db, version)).toBe(version);
  const now = Date.now();
  db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
  db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
  return db;
}

/** Inserts one row of `table`, its columns named by the record's keys. */
export function insertRow(db: Database.Database, table: string, row: Record<string, unknown>): void {
  const cols = Object.keys(row);
  db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...cols.map((c) => row[c]));
}
