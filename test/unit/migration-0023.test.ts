import { describe, it, expect } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migratedTo, insertRow } from '../helpers/migrations.js';
import { sha256Hex } from '../../src-main/core/util/ids.js';
import { listUiSessions, ownerBySession, sessionPublicId, setSessionClock, UI_SESSION_IDLE_MS } from '../../src-main/core/owners/login.js';
import type { Db } from '../../src-main/core/db/open.js';

// 0023-ui-sessions: window sessions gain the id Settings names them by, their last use and the browser's label.
describe('0023-ui-sessions', () => {
  it('sessions signed in before it keep working, get their public id and last use, and slide from their next use', () => {
    const db = migratedTo(22);
    const now = Date.now();
    const token = 'ars_before-the-migration';
    // The old rules: an 8-hour idle deadline, renewed on use; this one was last used an hour ago.
    const lastUse = now - 3600_000;
    insertRow(db, 'ui_sessions', { id_hash: sha256Hex(token), owner_id: 'own_1', created_at: now - 2 * 86_400_000, expires_at: lastUse + 8 * 3600_000 });
    insertRow(db, 'ui_sessions', { id_hash: sha256Hex('ars_other'), owner_id: 'own_1', created_at: now - 60_000, expires_at: now - 60_000 + 8 * 3600_000 });
    expect(migrate(db, 23)).toBe(23);

    const rows = db.prepare('SELECT id_hash, public_id, last_used_at, client, expires_at FROM ui_sessions ORDER BY created_at').all() as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      { id_hash: sha256Hex(token), public_id: sessionPublicId(sha256Hex(token)), last_used_at: lastUse, client: '', expires_at: lastUse + 8 * 3600_000 },
      { id_hash: sha256Hex('ars_other'), public_id: sessionPublicId(sha256Hex('ars_other')), last_used_at: now - 60_000, client: '', expires_at: now - 60_000 + 8 * 3600_000 },
    ]);
    // The public id is unique, and the owner's sessions are read by an index.
    expect(() => insertRow(db, 'ui_sessions', { id_hash: 'x', owner_id: 'own_1', created_at: now, expires_at: now, public_id: rows[0]!.public_id })).toThrow(/UNIQUE/);
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT public_id FROM ui_sessions WHERE owner_id = ? ORDER BY last_used_at DESC').all('own_1') as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toContain('ui_sessions_by_owner');

    // Listed the most recently used first; the old session still signs in and now slides 30 days.
    const d = db as unknown as Db;
    expect(listUiSessions(d, 'own_1').map((s) => s.session_id)).toEqual([rows[1]!.public_id, rows[0]!.public_id]);
    setSessionClock(d, () => now);
    expect(ownerBySession(d, token)?.owner_id).toBe('own_1');
    expect(db.prepare('SELECT expires_at, last_used_at FROM ui_sessions WHERE id_hash = ?').get(sha256Hex(token))).toEqual({ expires_at: now + UI_SESSION_IDLE_MS, last_used_at: now });
    setSessionClock(d, undefined);
  });
});
