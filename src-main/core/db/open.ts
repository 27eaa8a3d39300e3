import Database from 'better-sqlite3';
import { migrate } from './migrate.js';

export type Db = Database.Database;

/** Opens the store: WAL, foreign keys, a busy timeout, then migrations up to the latest (long ones report through `log`). */
export function openDb(file: string, log?: (line: string) => void): Db {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, Infinity, log);
  return db;
}

/** Runs fn in an IMMEDIATE transaction (takes the write lock up front: no upgrade deadlocks). */
export function immediate<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}
