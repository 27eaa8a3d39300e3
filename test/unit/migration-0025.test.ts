import { describe, expect, it } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { insertRow, migratedTo } from '../helpers/migrations.js';

/**
 * Migration 0025 (docs/hosts.md "Adding a host"): the runners table no longer names the hosts in
 * SQL; every runner row, with the columns later migrations added (coalesce, work), survives as it was.
 */
describe('migration 0025: host names checked in code', () => {
  it('keeps every runner as it was and takes a host the old CHECK refused', () => {
    const db = migratedTo(24);
    const now = Date.now();
    insertRow(db, 'agents', { id: 'agt_1', plate: 'ADA-AGT-1', name: 'Rev', slug: 'rev', owner_id: 'own_1', scopes: 0, created_at: now });
    const rows = [
      { plate: 'ADA-AGT-1', host: 'claude-code', preset: 'claude -p', command: '/usr/bin/claude', args: '["-p"]', cwd: null, timeout_ms: 600000, env: '{"sealed":"x"}', coalesce: 1, work: 'edit', created_at: now, updated_at: now },
      { plate: 'ADA-AGT-1', host: 'codex', preset: null, command: 'codex', args: '["exec"]', cwd: '/tmp/w', timeout_ms: 1000, env: '{}', coalesce: 0, work: null, created_at: now + 1, updated_at: now + 2 },
      { plate: 'ADA-AGT-1', host: 'gemini', preset: 'gemini -p', command: 'gemini', args: '[]', cwd: null, timeout_ms: 5000, env: '{}', coalesce: 0, work: 'room', created_at: now + 2, updated_at: now + 2 },
    ];
    for (const r of rows) insertRow(db, 'runners', r);
    // Before: a host the SQL did not list is refused by the database itself.
    expect(() => insertRow(db, 'runners', { ...rows[1]!, host: 'opencode' })).toThrow(/CHECK/);

    expect(migrate(db, 25)).toBe(25);
    expect(db.prepare('SELECT * FROM runners ORDER BY created_at').all()).toEqual(rows);
    const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runners'").get() as { sql: string }).sql;
    expect(sql).not.toMatch(/host IN/);
    // After: the database takes any host name (the route checks it against the adapters) ...
    insertRow(db, 'runners', { ...rows[1]!, host: 'opencode' });
    expect(db.prepare("SELECT host FROM runners WHERE host = 'opencode'").get()).toEqual({ host: 'opencode' });
    // ... and keeps every other rule of the table: one runner per agent and host, the agent must exist, work's values.
    expect(() => insertRow(db, 'runners', { ...rows[0]! })).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insertRow(db, 'runners', { ...rows[1]!, plate: 'NO-SUCH', host: 'qwen' })).toThrow(/FOREIGN KEY/);
    expect(() => insertRow(db, 'runners', { ...rows[1]!, host: 'cline', work: 'yolo' })).toThrow(/CHECK/);
    expect(db.pragma('foreign_key_check')).toEqual([]);
  });
});
