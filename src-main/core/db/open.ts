import Database from 'better-sqlite3';
import { migrate } from './migrate.js';
import { stmt } from './stmt.js';

export type Db = Database.Database;

/**
 * How a commit reaches the disk. FULL: SQLite fsyncs the WAL at every commit. NORMAL: no fsync at
 * commit (survives a process crash, not a power loss). GROUP: NORMAL on the connection, and the
 * server waits for one shared fdatasync of the WAL before it acknowledges a write (group commit,
 * db/group-commit.ts): acknowledged writes survive power loss as with FULL. ASYNC (the server's
 * default): the same shared fdatasync starts as the write is acknowledged, without the answer
 * waiting for it (asynchronous commit). See docs/performance.md.
 */
export type Synchronous = 'FULL' | 'NORMAL' | 'GROUP' | 'ASYNC';

export interface OpenOptions {
  /** FULL by default here (tools that open a home briefly); the server runs ASYNC (start.ts). */
  synchronous?: Synchronous;
  /** Runs on the open connection before migrations (start.ts: the integrity check). */
  beforeMigrate?: (db: Db) => void;
  /** Progress lines of long migrations (e.g. building the search index of a large home). */
  log?: (line: string) => void;
}

/** Opens the store: WAL, foreign keys, a busy timeout, then migrations up to the latest (long ones report through `log`). */
export function openDb(file: string, opts: OpenOptions = {}): Db {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${opts.synchronous && opts.synchronous !== 'FULL' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    opts.beforeMigrate?.(db);
    migrate(db, Infinity, opts.log);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

const serials = new WeakMap<Db, number>();

/** Counts the transactions immediate() has begun on this connection (db/watch.ts tells them apart by it). */
export function transactionSerial(db: Db): number {
  return serials.get(db) ?? 0;
}

/**
 * Runs fn in an IMMEDIATE transaction (takes the write lock up front: no upgrade deadlocks), or
 * in a savepoint when a transaction is open already; rolled back when fn throws. What
 * better-sqlite3's `db.transaction(fn).immediate()` does, without building four wrapper
 * functions for every call (every write of every request comes through here).
 */
export function immediate<T>(db: Db, fn: () => T): T {
  const nested = db.inTransaction;
  stmt(db, nested ? 'SAVEPOINT ar_tx' : 'BEGIN IMMEDIATE').run();
  if (!nested) serials.set(db, (serials.get(db) ?? 0) + 1);
  try {
    const result = fn();
    if (result && typeof (result as { then?: unknown }).then === 'function') throw new TypeError('a transaction function cannot return a promise');
    stmt(db, nested ? 'RELEASE ar_tx' : 'COMMIT').run();
    return result;
  } catch (err) {
    // SQLite may have ended the transaction itself (some errors roll it back): undo only what is open.
    if (db.inTransaction) {
      if (nested) {
        stmt(db, 'ROLLBACK TO ar_tx').run();
        stmt(db, 'RELEASE ar_tx').run();
      } else {
        stmt(db, 'ROLLBACK').run();
      }
    }
    throw err;
  }
}
