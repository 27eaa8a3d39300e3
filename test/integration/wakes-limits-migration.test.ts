import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src-main/core/db/migrate.js';
import { MIGRATIONS } from '../../src-main/core/db/migrations/index.js';
import { migration0010 } from '../../src-main/core/db/migrations/0010-wake-limits.js';

describe('migration 0010-wake-limits', () => {
  it('keeps the wakes and runners written before it, depth 0, and accepts held and merged', () => {
    expect(MIGRATIONS).toContain(migration0010);
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    expect(migrate(db, 9)).toBe(9);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-ABCDEF', 'own_1', 'Alice', 'alice', 31, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    db.prepare("INSERT INTO runners (plate, host, command, timeout_ms, created_at, updated_at) VALUES ('ADA-AGT-ABCDEF', 'codex', 'codex', 1000, 1, 1)").run();
    const wake = db.prepare(
      "INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, status, reason, started_at, created_at) VALUES (?, 'ADA-AGT-ABCDEF', 'room_1', 'mention', ?, ?, ?, ?, ?, ?)",
    );
    wake.run('wake_1', 'queued body', 'e1', 'queued', null, null, now);
    wake.run('wake_2', 'ran', 'e2', 'handled', null, now - 10, now);
    wake.run('wake_3', 'failed body', 'e3', 'failed', 'no session', now - 5, now);
    const seqBefore = (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'wakes'").get() as { seq: number }).seq;

    // Up to 0010, whose rebuild this checks (0011 changes the wakes' indexes: migrations.test.ts).
    migrate(db, 10);
    expect(db.pragma('user_version', { simple: true })).toBe(10);
    expect(db.prepare('SELECT id, content, status, reason, chain_depth, merged_into, retry_of, usage_input_tokens FROM wakes ORDER BY seq').all()).toEqual([
      { id: 'wake_1', content: 'queued body', status: 'queued', reason: null, chain_depth: 0, merged_into: null, retry_of: null, usage_input_tokens: null },
      { id: 'wake_2', content: 'ran', status: 'handled', reason: null, chain_depth: 0, merged_into: null, retry_of: null, usage_input_tokens: null },
      { id: 'wake_3', content: 'failed body', status: 'failed', reason: 'no session', chain_depth: 0, merged_into: null, retry_of: null, usage_input_tokens: null },
    ]);
    expect(db.prepare('SELECT coalesce FROM runners').all()).toEqual([{ coalesce: 0 }]);
    // The rebuilt table keeps its counter, its earlier indexes, and takes the new statuses only.
    expect((db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'wakes'").get() as { seq: number }).seq).toBe(seqBefore);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'wakes'").all() as Array<{ name: string }>).map((r) => r.name);
    expect(indexes).toEqual(expect.arrayContaining(['wakes_dispatchable', 'wakes_by_queue', 'wakes_started_by_plate', 'wakes_held']));
    db.prepare("UPDATE wakes SET status = 'held', reason = 'budget' WHERE id = 'wake_1'").run();
    db.prepare("UPDATE wakes SET status = 'merged' WHERE id = 'wake_1'").run();
    expect(() => db.prepare("UPDATE wakes SET status = 'paused' WHERE id = 'wake_1'").run()).toThrow(/CHECK constraint/);
  });
});
