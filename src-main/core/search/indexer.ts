import { performance } from 'node:perf_hooks';
import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { defineMemo, recall } from '../db/watch.js';
import type { Core } from '../core.js';
import { repeat, type StopStep } from '../util/repeat.js';

/**
 * Messages reach the search index in batches (docs/search.md "Indexing messages"), not one
 * FTS5 insert inside each message's own transaction: FTS5 writes a new segment per
 * transaction, so indexing a hundred messages at once costs little more than indexing one,
 * and a `send_message` commits fewer pages. `search_progress.messages_rowid` marks the last
 * message indexed. A send indexes what waits itself when many wait or its own text is long
 * (in its own transaction: no extra commit), the indexer below takes what waits once messages
 * stop coming, and a search indexes whatever is still pending before it reads, so a message is
 * found as soon as its send was answered.
 */

/**
 * A message up to this many bytes waits for a batch; a longer one is indexed in its own
 * transaction, where its text costs what it costs either way (FTS5 spends its time on the words).
 */
export const DEFERRED_MAX_BYTES = 1024;
/**
 * Messages waiting after which a send indexes them all in its own transaction: what a search
 * indexes before it reads is never more than this many short messages (a few ms).
 */
export const PENDING_MAX_ROWS = 32;
/** At most this many messages, and this many bytes of their text, per batch of the background indexer (at least one message). */
export const INDEX_BATCH_ROWS = 64;
export const INDEX_BATCH_BYTES = 64 * 1024;
/** Batches a search indexes before it reads: all that is pending in normal running, bounded when a backlog was left (e.g. rows imported). */
export const SEARCH_FLUSH_BATCHES = 2;
/**
 * How often the background indexer looks. It indexes only when no message came since its last
 * look: while messages flow, sends index in their own transactions (above), so the indexer adds
 * no commit, and no sync a later answer would wait for, to a busy room.
 */
export const INDEXER_EVERY_MS = 1000;
/** How long one turn of the background indexer may work before it yields. */
export const INDEXER_TURN_MS = 8;

/** The progress mark, read once until it moves (db/watch.ts): every send asks for it. */
const progress = defineMemo<number>('search_progress', [
  { table: 'search_progress', on: 'INSERT' },
  { table: 'search_progress', on: 'DELETE' },
  { table: 'search_progress', on: 'UPDATE OF messages_rowid' },
]);

function indexedUpTo(db: Db): number {
  return recall(progress(db), '', () => (stmt(db, 'SELECT messages_rowid AS r FROM search_progress WHERE id = 1').get() as { r: number } | undefined)?.r ?? 0);
}

/** Whether some message is not in the search index yet (two lookups on rowids). */
export function messagesPending(db: Db): boolean {
  return newestMessage(db) > indexedUpTo(db);
}

/** Indexes the next batch of pending messages in one transaction; returns how many. */
export function indexMessageBatch(db: Db): number {
  if (!messagesPending(db)) return 0;
  return immediate(db, () => {
    const after = indexedUpTo(db);
    const rows = stmt(db, 'SELECT rowid AS r, length(CAST(body AS BLOB)) AS n FROM messages WHERE rowid > ? ORDER BY rowid LIMIT ?').all(
      after,
      INDEX_BATCH_ROWS,
    ) as Array<{ r: number; n: number }>;
    let upTo = after;
    let bytes = 0;
    let count = 0;
    for (const row of rows) {
      // At least one message per batch, however long.
      if (count > 0 && bytes + row.n > INDEX_BATCH_BYTES) break;
      bytes += row.n;
      upTo = row.r;
      count++;
    }
    if (count === 0) return 0;
    indexUpTo(db, after, upTo);
    return count;
  });
}

/** Indexes every message up to `rowid` that is not indexed yet (inside the caller's transaction). */
function indexUpTo(db: Db, after: number, upTo: number): void {
  stmt(
    db,
    `INSERT INTO search_fts(rowid, title, body, kind, room_id, created_at)
     SELECT rowid * 8 + 1, '', body, 'message', room_id, created_at FROM messages WHERE rowid > ? AND rowid <= ?`,
  ).run(after, upTo);
  stmt(db, 'UPDATE search_progress SET messages_rowid = ? WHERE id = 1').run(upTo);
}

/**
 * Called by a send inside its transaction, with the new message's rowid and body size: a short
 * message waits for a batch, unless PENDING_MAX_ROWS are already waiting; a long one is indexed
 * now, with whatever waits before it.
 */
export function messageWritten(db: Db, rowid: number, bytes: number): void {
  const after = indexedUpTo(db);
  if (bytes <= DEFERRED_MAX_BYTES && rowid - after <= PENDING_MAX_ROWS) return;
  indexUpTo(db, after, rowid);
}

/** Indexes pending messages, at most `batches` batches; returns how many. */
export function indexPendingMessages(db: Db, batches = Infinity): number {
  let total = 0;
  for (let i = 0; i < batches; i++) {
    const n = indexMessageBatch(db);
    if (n === 0) break;
    total += n;
  }
  return total;
}

function newestMessage(db: Db): number {
  return (stmt(db, 'SELECT COALESCE(MAX(rowid), 0) AS r FROM messages').get() as { r: number }).r;
}

/** The CAPABILITY_STARTERS entry: indexes what waits once messages stop coming, one bounded turn every INDEXER_EVERY_MS. */
export function startMessageIndexer(core: Core): StopStep {
  let seen = -1;
  return repeat({ name: 'search indexing', owner: core, everyMs: INDEXER_EVERY_MS, runNow: false, log: core.config.log }, () => {
    const newest = newestMessage(core.db);
    const quiet = newest === seen;
    seen = newest;
    if (!quiet || newest <= indexedUpTo(core.db)) return;
    const started = performance.now();
    while (performance.now() - started < INDEXER_TURN_MS && indexMessageBatch(core.db) > 0) {
      // one more batch while the turn lasts
    }
  });
}
