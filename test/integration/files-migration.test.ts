import { describe, it, expect } from 'vitest';
import Database from 'better-sqlite3';
import { migrate } from '../../src-main/core/db/migrate.js';
import { insertRow, migratedTo } from '../helpers/migrations.js';

/** 0003-files: data of the versions before survives; the schema guards kinds, states and types. */
describe('migration 0003-files', () => {
  const atV2 = () => migratedTo(2);
  const version = (db: Database.Database, extra: Record<string, unknown> = {}) =>
    insertRow(db, 'file_versions', {
      file_id: 'file_1',
      version: 1,
      kind: 'inline',
      status: 'ready',
      filename: 'a.txt',
      content_type: 'text/plain',
      size_bytes: 3,
      sha256: 'a'.repeat(64),
      uploader_kind: 'human',
      uploader_owner_id: 'own_1',
      created_at: 1,
      ...extra,
    });

  it('migrates a database with rooms; files and versions reference them; one row per (room, path)', () => {
    const db = atV2();
    expect(migrate(db)).toBeGreaterThanOrEqual(3);
    expect(db.prepare('SELECT name FROM rooms').all()).toEqual([{ name: 'Main' }]);
    db.prepare("INSERT INTO files (id, room_id, path, created_at, updated_at) VALUES ('file_1', 'room_1', 'a.txt', 1, 1)").run();
    version(db);
    version(db, { version: 2, kind: 'presigned', status: 'quarantined', quarantine_reason: 'awaiting_upload' });
    expect(db.prepare('SELECT next_version FROM files').get()).toEqual({ next_version: 1 });
    expect(() => db.prepare("INSERT INTO files (id, room_id, path, created_at, updated_at) VALUES ('file_2', 'room_1', 'a.txt', 1, 1)").run()).toThrow(/UNIQUE/);
    expect(() => db.prepare("INSERT INTO files (id, room_id, path, created_at, updated_at) VALUES ('file_3', 'room_x', 'b.txt', 1, 1)").run()).toThrow(/FOREIGN KEY/);
    // Deleting a file takes its versions with it.
    db.prepare("DELETE FROM files WHERE id = 'file_1'").run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM file_versions').get()).toEqual({ n: 0 });
  });

  it('the schema refuses unknown kinds and states, and values of the wrong type (STRICT)', () => {
    const db = atV2();
    migrate(db);
    db.prepare("INSERT INTO files (id, room_id, path, created_at, updated_at) VALUES ('file_1', 'room_1', 'a.txt', 1, 1)").run();
    expect(() => version(db, { kind: 'linked' })).toThrow(/CHECK/);
    expect(() => version(db, { status: 'pending' })).toThrow(/CHECK/);
    expect(() => version(db, { size_bytes: 'big' })).toThrow(/cannot store TEXT value in INTEGER column/);
    expect(() =>
      db.prepare("INSERT INTO room_workspaces (room_id, git_token_enc, updated_by, updated_at) VALUES ('room_1', 'plain text', 'own_1', 1)").run(),
    ).toThrow(/cannot store TEXT value in BLOB column/);
  });
});
