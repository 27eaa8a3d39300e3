import { describe, expect, it } from 'vitest';
import { migrate } from '../../src-main/core/db/migrate.js';
import { insertRow, migratedTo } from '../helpers/migrations.js';

/**
 * Migration 0024 (docs/wakes.md "Test wakes"): rooms gain a kind; the "agent-rooms doctor" room
 * an owner made and is alone in becomes that owner's test room, one per owner; every other room,
 * whatever its name, stays an ordinary room.
 */
describe('migration 0024: test rooms', () => {
  it('turns an owner\'s own doctor room into the test room and leaves every other room as it was', () => {
    const db = migratedTo(23);
    const now = Date.now();
    insertRow(db, 'owners', { id: 'own_2', name: 'Eve', slug: 'eve', plate_prefix: 'EVE', token_hash: 'h2', is_primary: 0, created_at: now });
    const room = (id: string, name: string, by: string, at: number, humans: string[]) => {
      insertRow(db, 'rooms', { id, name, created_by: by, created_at: at });
      for (const h of humans) insertRow(db, 'room_humans', { room_id: id, owner_id: h, role: h === by ? 'admin' : 'member', created_at: at });
    };
    room('room_doc_ada', 'agent-rooms doctor', 'own_1', now + 1, ['own_1']);
    room('room_doc_ada2', 'agent-rooms doctor', 'own_1', now + 2, ['own_1']);
    // Eve's room of the same name, which she added Ada to: hers, and ordinary.
    room('room_doc_eve', 'agent-rooms doctor', 'own_2', now + 3, ['own_2', 'own_1']);
    // Bo's doctor room that Eve is in too: another owner's, and shared talk stays in the list.
    insertRow(db, 'owners', { id: 'own_3', name: 'Bo', slug: 'bo', plate_prefix: 'BO', token_hash: 'h3', is_primary: 0, created_at: now });
    room('room_doc_bo', 'agent-rooms doctor', 'own_3', now + 4, ['own_3', 'own_2']);
    room('room_tw_eve', 'Test wakes', 'own_2', now + 5, ['own_2']);

    expect(migrate(db, 24)).toBe(24);
    const rows = db.prepare('SELECT id, name, kind FROM rooms ORDER BY created_at').all() as Array<{ id: string; name: string; kind: string }>;
    expect(Object.fromEntries(rows.map((r) => [r.id, `${r.kind}:${r.name}`]))).toEqual({
      room_1: 'room:Main',
      room_doc_ada: 'test:Test wakes',
      room_doc_ada2: 'room:agent-rooms doctor',
      room_doc_eve: 'room:agent-rooms doctor',
      room_doc_bo: 'room:agent-rooms doctor',
      room_tw_eve: 'room:Test wakes',
    });
    // One test room per owner, whatever writes next.
    expect(() => db.prepare("UPDATE rooms SET kind = 'test' WHERE id = 'room_doc_ada2'").run()).toThrow(/UNIQUE/);
    expect(() => db.prepare("UPDATE rooms SET kind = 'other' WHERE id = 'room_1'").run()).toThrow(/CHECK/);
    // A room written as before the migration is an ordinary room.
    insertRow(db, 'rooms', { id: 'room_new', name: 'New', created_by: 'own_2', created_at: now + 9 });
    expect(db.prepare("SELECT kind FROM rooms WHERE id = 'room_new'").get()).toEqual({ kind: 'room' });
  });

  it('a doctor room whose owner left it, or that another human joined, is not taken', () => {
    const db = migratedTo(23);
    const now = Date.now();
    insertRow(db, 'owners', { id: 'own_2', name: 'Eve', slug: 'eve', plate_prefix: 'EVE', token_hash: 'h2', is_primary: 0, created_at: now });
    insertRow(db, 'rooms', { id: 'room_left', name: 'agent-rooms doctor', created_by: 'own_1', created_at: now + 1 });
    insertRow(db, 'rooms', { id: 'room_shared', name: 'agent-rooms doctor', created_by: 'own_1', created_at: now + 2 });
    insertRow(db, 'room_humans', { room_id: 'room_shared', owner_id: 'own_1', role: 'admin', created_at: now });
    insertRow(db, 'room_humans', { room_id: 'room_shared', owner_id: 'own_2', role: 'member', created_at: now });
    expect(migrate(db, 24)).toBe(24);
    expect(db.prepare("SELECT count(*) AS n FROM rooms WHERE kind = 'test'").get()).toEqual({ n: 0 });
  });
});
