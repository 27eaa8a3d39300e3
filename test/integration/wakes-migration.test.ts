import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src-main/core/db/migrate.js';
import { MIGRATIONS } from '../../src-main/core/db/migrations/index.js';
import { migration0004 } from '../../src-main/core/db/migrations/0004-wakes.js';

describe('migration 0004-wakes', () => {
  it('keeps queued, running and ended wakes written before it, with the new columns empty', () => {
    expect(MIGRATIONS).toContain(migration0004);
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    expect(migrate(db, 3)).toBeLessThan(4);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-ABCDEF', 'own_1', 'Alice', 'alice', 31, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    const wake = db.prepare(
      "INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, status, reason, host, instance_id, created_at) VALUES (?, 'ADA-AGT-ABCDEF', 'room_1', 'mention', ?, ?, ?, ?, ?, ?, ?)",
    );
    wake.run('wake_1', 'queued body', 'e1', 'queued', null, null, null, now);
    wake.run('wake_2', 'running body', 'e2', 'running', null, 'claude-code', 'sess-1', now);
    wake.run('wake_3', 'failed body', 'e3', 'failed', 'no session', 'claude-code', 'sess-1', now);

    migrate(db);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThanOrEqual(4);
    expect(
      db.prepare('SELECT id, content, status, reason, host, target, exit_code, stdout_tail, flagged_no_tool_call, run_credential_id FROM wakes ORDER BY seq').all(),
    ).toEqual([
      { id: 'wake_1', content: 'queued body', status: 'queued', reason: null, host: null, target: null, exit_code: null, stdout_tail: null, flagged_no_tool_call: 0, run_credential_id: null },
      { id: 'wake_2', content: 'running body', status: 'running', reason: null, host: 'claude-code', target: null, exit_code: null, stdout_tail: null, flagged_no_tool_call: 0, run_credential_id: null },
      { id: 'wake_3', content: 'failed body', status: 'failed', reason: 'no session', host: 'claude-code', target: null, exit_code: null, stdout_tail: null, flagged_no_tool_call: 0, run_credential_id: null },
    ]);
    // The new tables are STRICT (a runner's host is checked in code since migration 0025: docs/hosts.md).
    expect(() =>
      db.prepare("INSERT INTO runners (plate, host, command, timeout_ms, created_at, updated_at) VALUES ('ADA-AGT-ABCDEF', 'codex', 'x', 'soon', 1, 1)").run(),
    ).toThrow(/cannot store TEXT value in INTEGER column/);
    expect(() => db.prepare("INSERT INTO room_focus (room_id, focus, set_by, updated_at) VALUES ('room_1', 'f', 'own_1', 'now')").run()).toThrow(
      /cannot store TEXT value in INTEGER column/,
    );
    db.prepare("INSERT INTO room_decisions (id, room_id, text, created_by, created_at) VALUES ('dec_1', 'room_1', 'use SQLite', 'own_1', ?)").run(now);
    expect(db.prepare('SELECT text FROM room_decisions').all()).toEqual([{ text: 'use SQLite' }]);
  });
});
