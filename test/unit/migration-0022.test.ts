import { describe, it, expect } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migratedTo, insertRow } from '../helpers/migrations.js';

/** Migration 0022 (invitations): every human so far has joined; an invitee's own act accepts; their mentions wait for it. */
describe('migration 0022: room invitations', () => {
  it('keeps every member joined, and records mentions only of joined humans', () => {
    const db = migratedTo(21);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_2', 'Bea', 'bea', 'BEA', 'h2', 0, ?)").run(now);
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_3', 'Cy', 'cy', 'CYY', 'h3', 0, ?)").run(now);
    insertRow(db, 'room_humans', { room_id: 'room_1', owner_id: 'own_1', role: 'admin', created_at: now });
    insertRow(db, 'room_humans', { room_id: 'room_1', owner_id: 'own_2', role: 'member', created_at: now });
    expect(migrate(db, 22)).toBe(22);
    expect(db.prepare('SELECT owner_id, state, invited_by FROM room_humans ORDER BY owner_id').all()).toEqual([
      { owner_id: 'own_1', state: 'joined', invited_by: null },
      { owner_id: 'own_2', state: 'joined', invited_by: null },
    ]);
    expect(() => db.prepare("UPDATE room_humans SET state = 'maybe' WHERE owner_id = 'own_2'").run()).toThrow(/CHECK/);
    // Ada invites Cy; a mention of Cy is not his yet; his own post accepts and is then counted as an answer.
    insertRow(db, 'room_humans', { room_id: 'room_1', owner_id: 'own_3', role: 'member', created_at: now, state: 'invited', invited_by: 'own_1' });
    const msg = (rowid: number, sender: string, mentions: unknown[]) =>
      insertRow(db, 'messages', { rowid, id: `msg_${rowid}`, room_id: 'room_1', seq: rowid, sender_kind: 'human', sender_owner_id: sender, body: 'b', mentions: JSON.stringify(mentions), created_at: now + rowid });
    msg(1, 'own_1', [{ kind: 'human', handle: '@cy', owner_id: 'own_3' }, { kind: 'human', handle: '@bea', owner_id: 'own_2' }]);
    expect(db.prepare('SELECT owner_id FROM human_mentions').all()).toEqual([{ owner_id: 'own_2' }]);
    msg(2, 'own_3', []);
    expect(db.prepare("SELECT state FROM room_humans WHERE owner_id = 'own_3'").get()).toEqual({ state: 'joined' });
    // Accepting, by whatever act, brings the room's earlier mention of him in (his post answers it).
    expect(db.prepare("SELECT msg_rowid FROM human_mentions WHERE owner_id = 'own_3'").all()).toEqual([{ msg_rowid: 1 }]);
    msg(3, 'own_1', [{ kind: 'human', handle: '@cy', owner_id: 'own_3' }]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM human_mentions WHERE owner_id = 'own_3'").get()).toEqual({ n: 2 });
    // Setting one's Trust in the room, or adding one's agent there, accepts too.
    db.prepare("UPDATE room_humans SET state = 'invited' WHERE owner_id = 'own_3'").run();
    insertRow(db, 'room_trust', { room_id: 'room_1', owner_id: 'own_3', mode: 'trust_room', updated_at: now });
    expect(db.prepare("SELECT state FROM room_humans WHERE owner_id = 'own_3'").get()).toEqual({ state: 'joined' });
    db.prepare("UPDATE room_humans SET state = 'invited' WHERE owner_id = 'own_3'").run();
    insertRow(db, 'agents', { id: 'agt_1', plate: 'CYY-AGT-1', owner_id: 'own_3', name: 'C', slug: 'c', scopes: 0, created_at: now });
    insertRow(db, 'room_agents', { room_id: 'room_1', plate: 'CYY-AGT-1', added_by: 'own_3', created_at: now });
    expect(db.prepare("SELECT state FROM room_humans WHERE owner_id = 'own_3'").get()).toEqual({ state: 'joined' });
  });
});
