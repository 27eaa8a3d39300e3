import { describe, it, expect } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migratedTo, insertRow } from '../helpers/migrations.js';

/** Migration 0021 (Needs you): dismissals, the human mentions index filled from real rows, its triggers. */
describe('migration 0021: needs dismissals and human mentions', () => {
  const mention = (ownerId: string) => JSON.stringify([{ kind: 'human', handle: '@x', owner_id: ownerId }]);

  it('indexes the mentions of humans already posted, answered ones marked, and keeps them with new posts', () => {
    const db = migratedTo(20);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_2', 'Bea', 'bea', 'BEA', 'h2', 0, ?)").run(now);
    insertRow(db, 'room_humans', { room_id: 'room_1', owner_id: 'own_2', role: 'member', created_at: now });
    const msg = (rowid: number, sender: string, mentions: string) =>
      insertRow(db, 'messages', { rowid, id: `msg_${rowid}`, room_id: 'room_1', seq: rowid, sender_kind: 'human', sender_owner_id: sender, body: `m${rowid}`, mentions, created_at: now + rowid });
    msg(1, 'own_2', mention('own_1')); // Bea mentions Ada: Ada answers below
    msg(2, 'own_1', '[]');
    msg(3, 'own_1', mention('own_1')); // Ada mentions herself: not a need
    msg(4, 'own_1', mention('own_2')); // Ada mentions Bea: Bea's next post answers it
    msg(5, 'own_2', mention('own_1')); // after Ada's last post: waits
    expect(migrate(db, 21)).toBe(21);
    const rows = db.prepare('SELECT msg_rowid, owner_id, answered_at IS NOT NULL AS answered FROM human_mentions ORDER BY msg_rowid').all();
    expect(rows).toEqual([
      { msg_rowid: 1, owner_id: 'own_1', answered: 1 },
      { msg_rowid: 4, owner_id: 'own_2', answered: 1 },
      { msg_rowid: 5, owner_id: 'own_1', answered: 0 },
    ]);
    // A new post mentioning Bea is indexed; Bea's own post answers what waits on her in that room.
    msg(6, 'own_1', mention('own_2'));
    expect(db.prepare("SELECT COUNT(*) AS n FROM human_mentions WHERE owner_id = 'own_2' AND answered_at IS NULL").get()).toEqual({ n: 1 });
    msg(7, 'own_2', '[]');
    expect(db.prepare("SELECT COUNT(*) AS n FROM human_mentions WHERE owner_id = 'own_2' AND answered_at IS NULL").get()).toEqual({ n: 0 });
    // A deleted message takes its rows with it.
    db.prepare('DELETE FROM messages WHERE rowid = 5').run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM human_mentions WHERE msg_rowid = 5').get()).toEqual({ n: 0 });
    // Dismissals: one per (owner, kind, ref), of a known kind only.
    insertRow(db, 'needs_dismissals', { owner_id: 'own_1', kind: 'mention', ref: 'msg_1', room_id: 'room_1', dismissed_at: now });
    expect(() => insertRow(db, 'needs_dismissals', { owner_id: 'own_1', kind: 'mention', ref: 'msg_1', room_id: 'room_1', dismissed_at: now })).toThrow(/UNIQUE|PRIMARY/);
    expect(() => insertRow(db, 'needs_dismissals', { owner_id: 'own_1', kind: 'nonsense', ref: 'x', room_id: 'room_1', dismissed_at: now })).toThrow(/CHECK/);
    // Failed and held wakes have their index.
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'wakes_needs'").get()).toEqual({ name: 'wakes_needs' });
  });
});
