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
  // Writes queued behind an answer come first: every later write commits after them.
  let ahead: QueuedWrite[] | undefined;
  try {
    if (!nested) ahead = writeQueued(db);
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
    // The queued writes it ran were undone with it: they wait for the next transaction again.
    if (ahead?.length) requeue(db, ahead);
    throw err;
  }
}

/** A write queued by writeBehind, and what to do should it fail. */
interface QueuedWrite {
  write: () => void;
  failed: (err: unknown) => void;
}

const behind = new WeakMap<Db, QueuedWrite[]>();

/** True while flushWritesBehind's own transaction runs (it finds writes queued by definition). */
let flushing = false;

/** How long after a transaction found queued writes waiting (requests back to back) writeBehindPays says no. */
export const BUSY_SPELL_MS = 20;

const busySince = new WeakMap<Db, number>();

/**
 * Whether a write behind the answer pays now. It takes rows out of the commit the caller waits for,
 * at the cost of a commit of their own at the end of the turn, unless a request taken in the same
 * poll carries them in its commit. When requests come back to back (a transaction began while
 * queued writes still waited), the rows go into the answer's own commit for the next
 * BUSY_SPELL_MS: one commit per call, and no CPU spent on a second one while others wait.
 */
export function writeBehindPays(db: Db): boolean {
  const at = busySince.get(db);
  return at === undefined || performance.now() - at > BUSY_SPELL_MS;
}

/**
 * Queues a write that may follow the answer of the call that made it (docs/performance.md,
 * "Deliveries written behind the answer"): it runs at the start of the next write transaction
 * on this connection, before that transaction's own work, and at the latest in a transaction of
 * its own at the end of this event-loop turn (`setImmediate`), before any timer. Writes commit in
 * the order they were queued, and before any write queued or begun after them.
 *
 * Only for a caller whose answer leaves over the network: an HTTP client reads that answer in a
 * later turn, once the write is done. Each write runs in a savepoint; if it throws, that
 * savepoint is rolled back, `failed` is told, and the transaction that ran it goes on.
 */
export function writeBehind(db: Db, write: () => void, failed: (err: unknown) => void): void {
  let q = behind.get(db);
  if (!q) behind.set(db, (q = []));
  q.push({ write, failed });
  if (q.length === 1) flushSoon(db);
}

/** The connections on which an answer that leaves over the network is being made (answerLeavesThisTurn). */
const leaving = new WeakSet<Db>();

/**
 * Runs `f` as the making of an answer that leaves over the network from this event-loop turn
 * (an MCP tools/call answered over HTTP, mcp/call.ts): for its synchronous run, writes that start
 * nothing may follow the answer (`writeBehind`); whatever `f` does after its first `await` is not
 * covered. A transport timing fact, so it lives here rather than in any use case's context.
 */
export function answerLeavesThisTurn<T>(db: Db, f: () => T): T {
  if (leaving.has(db)) return f();
  leaving.add(db);
  try {
    return f();
  } finally {
    leaving.delete(db);
  }
}

/** Whether the answer being made leaves over the network from this turn (answerLeavesThisTurn), so a write may go behind it. */
export function writeBehindOpen(db: Db): boolean {
  return leaving.has(db);
}

/** Runs the queued writes now, in one transaction (nothing when none is queued or the connection is closed). */
export function flushWritesBehind(db: Db): void {
  if (!behind.get(db)?.length || !db.open || db.inTransaction) return;
  flushing = true;
  try {
    immediate(db, () => {});
  } finally {
    flushing = false;
  }
}


/**
 * In the check phase of this turn: after the poll that took the request, before any later I/O.
 * A request sent after the answer was read is taken in a later turn, so it finds the rows written.
 * Should the store be busy, again a little later (the next write runs them anyway).
 */
function flushSoon(db: Db, delayMs = 0): void {
  const run = () => {
    try {
      flushWritesBehind(db);
    } catch {
      if (behind.get(db)?.length) flushSoon(db, 100);
    }
  };
  if (delayMs) setTimeout(run, delayMs).unref();
  else setImmediate(run);
}

/** Runs the queued writes inside the transaction just begun; returns those written (a rollback queues them again). */
function writeQueued(db: Db): QueuedWrite[] | undefined {
  const q = behind.get(db);
  if (!q?.length) return undefined;
  if (!flushing) busySince.set(db, performance.now());
  const written: QueuedWrite[] = [];
  for (const w of q.splice(0)) {
    try {
      immediate(db, w.write);
      written.push(w);
    } catch (err) {
      w.failed(err);
    }
  }
  return written;
}

function requeue(db: Db, writes: QueuedWrite[]): void {
  const q = behind.get(db)!;
  const wasEmpty = q.length === 0;
  q.unshift(...writes);
  if (wasEmpty) flushSoon(db);
}
