import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src-main/core/db/migrate.js';
import { insertRow, migratedTo } from '../helpers/migrations.js';

/** 0002-tasks: data of version 1 survives, and the schema itself guards the task invariants. */
describe('migration 0002-tasks', () => {
  /** Version 1 with Ada's room and her agent Alice. */
  function atV1() {
    const db = migratedTo(1);
    db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-ABCDEF', 'own_1', 'Alice', 'alice', 31, ?)").run(Date.now());
    return db;
  }
  const insert = (db: Database.Database, id: string, extra: Record<string, unknown> = {}) =>
    insertRow(db, 'tasks', {
      id,
      room_id: 'room_1',
      title: 't',
      definition_of_done: 'd',
      assignee: 'ADA-AGT-ABCDEF',
      consent_state: 'auto',
      created_by_kind: 'human',
      created_by_owner: 'own_1',
      created_at: 1,
      updated_at: 1,
      ...extra,
    });

  it('migrates a version-1 database with rooms and agents; tasks reference them', () => {
    const db = atV1();
    migrate(db);
    expect(db.prepare('SELECT name FROM rooms').all()).toEqual([{ name: 'Main' }]);
    insert(db, 'task_1');
    expect(db.prepare('SELECT status, artifacts, consent_state FROM tasks').get()).toEqual({ status: 'todo', artifacts: '[]', consent_state: 'auto' });
    expect(() => insert(db, 'task_2', { room_id: 'room_nope' })).toThrow(/FOREIGN KEY/);
  });

  it('the schema refuses a doing task without a lease, a lease outside doing, a done task without handoff, a self-dependency', () => {
    const db = atV1();
    migrate(db);
    expect(() => insert(db, 'a', { status: 'doing' })).toThrow(/CHECK/);
    expect(() => insert(db, 'b', { lease_instance_id: 'i', lease_renewed_at: 1 })).toThrow(/CHECK/);
    expect(() => insert(db, 'c', { status: 'done' })).toThrow(/CHECK/);
    insert(db, 'd', { status: 'done', handoff_notes: 'n', completed_at: 2 });
    insert(db, 'e', { status: 'doing', lease_instance_id: 'i', lease_renewed_at: 1 });
    expect(() => db.prepare("INSERT INTO task_deps (task_id, depends_on) VALUES ('d', 'd')").run()).toThrow(/CHECK/);
    expect(() => insert(db, 'f', { status: 'pending' })).toThrow(/CHECK/);
  });
});
