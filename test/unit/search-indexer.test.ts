import { describe, it, expect, vi } from 'vitest';
import Database from 'better-sqlite3';
import { ok } from '../helpers/server.js';
import { agentInRoom, appFor } from '../helpers/seat.js';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migration0011 } from '../../src-main/core/db/migrations/0011-write-path.js';
import type { Core } from '../../src-main/core/core.js';
import {
  DEFERRED_MAX_BYTES,
  INDEX_BATCH_BYTES,
  INDEX_BATCH_ROWS,
  INDEXER_EVERY_MS,
  PENDING_MAX_ROWS,
  indexMessageBatch,
  indexPendingMessages,
  messagesPending,
  startMessageIndexer,
} from '../../src-main/core/search/indexer.js';
import { search } from '../../src-main/core/search/service.js';
import { LoopCount } from '../../src-main/core/util/repeat.js';

/**
 * Messages are indexed for search in batches after their transaction (docs/search.md "Indexing
 * messages"): a send writes no search entry, a search finds every message sent before it, and the
 * mark of what is indexed never skips a message.
 */
const entries = (db: Database.Database) => (db.prepare('SELECT count(*) AS n FROM search_fts WHERE rowid < 1125899906842624').get() as { n: number }).n;
const mark = (db: Database.Database) => (db.prepare('SELECT messages_rowid AS r FROM search_progress').get() as { r: number }).r;

describe('search indexing of messages, in batches', () => {
  const app = appFor({ database: 'memory' });

  it('a send writes no search entry; the next search indexes it first and finds it', async () => {
    const { room, c } = await agentInRoom(app, 'Writer', 'Index');
    const before = entries(app.core.db);
    await ok(c, 'send_message', { room, body: 'zebracorn sighting near the build server' });
    await ok(c, 'send_message', { room, body: 'second zebracorn, same place' });
    expect(entries(app.core.db)).toBe(before);
    expect(messagesPending(app.core.db)).toBe(true);
    const found = await ok<{ results: Array<{ kind: string; snippet: string }> }>(c, 'search', { room, query: 'zebracorn' });
    expect(found.results.map((r) => r.kind)).toEqual(['message', 'message']);
    expect(entries(app.core.db)).toBe(before + 2);
    expect(messagesPending(app.core.db)).toBe(false);
  });

  it('a long message is indexed in its own transaction, with what waits before it; so is the send after PENDING_MAX_ROWS short ones', async () => {
    const { room, c } = await agentInRoom(app, 'Talker', 'Index2');
    indexPendingMessages(app.core.db);
    const before = entries(app.core.db);
    await ok(c, 'send_message', { room, body: 'short one' });
    await ok(c, 'send_message', { room, body: 'long '.repeat(Math.ceil(DEFERRED_MAX_BYTES / 5) + 1) });
    expect(entries(app.core.db)).toBe(before + 2);
    expect(messagesPending(app.core.db)).toBe(false);
    for (let i = 0; i < PENDING_MAX_ROWS; i++) await ok(c, 'send_message', { room, body: `note ${i}` });
    expect(entries(app.core.db)).toBe(before + 2);
    await ok(c, 'send_message', { room, body: 'one too many' });
    expect(entries(app.core.db)).toBe(before + 3 + PENDING_MAX_ROWS);
    expect(messagesPending(app.core.db)).toBe(false);
  });
});

describe('the indexer and its mark', () => {
  const home = () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    let seq = 0;
    const insert = db.prepare("INSERT INTO messages (id, room_id, seq, sender_kind, sender_owner_id, body, created_at) VALUES (?, 'room_1', ?, 'human', 'own_1', ?, ?)");
    const add = (body: string) => {
      seq++;
      return Number(insert.run(`msg_${seq}`, seq, body, now).lastInsertRowid);
    };
    return { db, add };
  };

  it('a batch takes at most INDEX_BATCH_ROWS messages and about INDEX_BATCH_BYTES of text, at least one; the mark follows', () => {
    const { db, add } = home();
    for (let i = 0; i < INDEX_BATCH_ROWS + 5; i++) add(`short ${i}`);
    expect(indexMessageBatch(db)).toBe(INDEX_BATCH_ROWS);
    expect(indexMessageBatch(db)).toBe(5);
    expect(indexMessageBatch(db)).toBe(0);
    const big = 'word '.repeat(Math.ceil(INDEX_BATCH_BYTES / 5) + 10);
    const first = add(big);
    add(big);
    expect(indexMessageBatch(db)).toBe(1);
    expect(mark(db)).toBe(first);
    expect(indexPendingMessages(db)).toBe(1);
    expect(entries(db)).toBe(INDEX_BATCH_ROWS + 7);
    db.close();
  });

  it('the background indexer adds no commit while messages flow: it indexes what waits once a look finds no new message', () => {
    vi.useFakeTimers();
    const { db, add } = home();
    const stop = startMessageIndexer({ db, config: { log: () => {} }, services: { loops: new LoopCount() } } as unknown as Core);
    try {
      add('one');
      vi.advanceTimersByTime(INDEXER_EVERY_MS);
      expect(messagesPending(db)).toBe(true);
      add('two');
      vi.advanceTimersByTime(INDEXER_EVERY_MS);
      expect(messagesPending(db)).toBe(true);
      vi.advanceTimersByTime(INDEXER_EVERY_MS);
      expect(messagesPending(db)).toBe(false);
      expect(entries(db)).toBe(2);
    } finally {
      stop();
      vi.useRealTimers();
      db.close();
    }
  });

  it('deleting the newest message lowers the mark, so a rowid SQLite hands out again is indexed', () => {
    const { db, add } = home();
    add('alpha one');
    const last = add('alpha two');
    indexPendingMessages(db);
    db.prepare('DELETE FROM messages WHERE rowid = ?').run(last);
    expect(mark(db)).toBe(last - 1);
    expect(add('reused needle')).toBe(last);
    expect(search(db, { rooms: ['room_1'], query: 'needle' }).results.map((r) => r.id)).toEqual(['msg_3']);
    db.close();
  });

  it('the migration marks the messages already indexed by the old trigger: none is indexed twice', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db, migration0011.version - 1);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    db.prepare("INSERT INTO messages (id, room_id, seq, sender_kind, sender_owner_id, body, created_at) VALUES ('msg_1', 'room_1', 1, 'human', 'own_1', 'old needle', ?)").run(now);
    expect(entries(db)).toBe(1);
    migrate(db);
    expect(messagesPending(db)).toBe(false);
    expect(indexPendingMessages(db)).toBe(0);
    expect(search(db, { rooms: ['room_1'], query: 'needle' }).results.map((r) => r.id)).toEqual(['msg_1']);
    db.close();
  });
});
