import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { immediate, openDb, type Db } from '../../src-main/core/db/open.js';
import { GroupCommit } from '../../src-main/core/db/group-commit.js';

/**
 * Group commit (docs/performance.md, "Durability and group commit"): a write is acknowledged only
 * after an fdatasync of the WAL that started after its commit; concurrent writes share one sync;
 * a read never waits for the disk.
 */
describe('group commit', () => {
  let dir: string;
  let db: Db;
  let gc: GroupCommit;
  const changes = () => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  const write = (i: number) => db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES (?, 'A', ?, 'AAA', ?, 0, 0)").run(`own_${i}`, `a${i}`, `h${i}`);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-gc-'));
    db = openDb(join(dir, 'rooms.db'), { synchronous: 'GROUP' });
    gc = new GroupCommit(db, join(dir, 'rooms.db-wal'));
  });
  afterEach(async () => {
    await gc.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs NORMAL on the connection (the commit itself does not fsync)', () => {
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('a write is covered by a sync before durable() resolves; with nothing new written, no sync', async () => {
    // What ran before (the migrations) is synced by the first durable().
    await gc.durable();
    const before = gc.syncs;
    expect(before).toBeLessThanOrEqual(1);
    await gc.durable();
    expect(gc.syncs).toBe(before);
    write(1);
    const upTo = changes();
    await gc.durable();
    expect(gc.syncs).toBe(before + 1);
    expect(gc.syncedChanges).toBeGreaterThanOrEqual(upTo);
    // A read-only call: nothing to sync.
    db.prepare('SELECT count(*) FROM owners').get();
    await gc.durable();
    expect(gc.syncs).toBe(before + 1);
  });

  it('concurrent writes share syncs; a write made while a sync runs waits for the next one', async () => {
    await gc.durable();
    const before = gc.syncs;
    // The first write starts a sync (on the thread pool); the nineteen made while it runs may
    // have missed it, so they all wait for the one next sync: twenty acknowledgements, two syncs.
    const acks: Array<Promise<void>> = [];
    for (let i = 0; i < 20; i++) {
      write(i);
      acks.push(gc.durable());
    }
    const upTo = changes();
    await Promise.all(acks);
    expect(gc.syncs).toBe(before + 2);
    expect(gc.syncedChanges).toBeGreaterThanOrEqual(upTo);
  });

  it('after close, durable() resolves at once', async () => {
    await gc.durable();
    const before = gc.syncs;
    write(1);
    await gc.close();
    await gc.durable();
    expect(gc.syncs).toBe(before);
  });

  describe('batched commits', () => {
    const owners = (d: Database.Database) => (d.prepare("SELECT count(*) AS n FROM owners WHERE id LIKE 'own_%'").get() as { n: number }).n;
    const other = () => new Database(join(dir, 'rooms.db'), { readonly: true });

    it('the write transactions of one turn share one COMMIT; another connection sees none of them before it, all after', async () => {
      await gc.durable();
      const reader = other();
      try {
        const batches = gc.batches;
        const acks = [1, 2, 3].map((i) => {
          immediate(db, () => write(i));
          return gc.durable();
        });
        // Same turn: written on this connection, not committed yet.
        expect(owners(db)).toBe(3);
        expect(owners(reader)).toBe(0);
        await Promise.all(acks);
        expect(gc.batches).toBe(batches + 1);
        expect(owners(reader)).toBe(3);
      } finally {
        reader.close();
      }
    });

    it('a write that throws rolls back alone; the others of its batch commit', async () => {
      immediate(db, () => write(1));
      expect(() =>
        immediate(db, () => {
          write(2);
          write(1); // the same id again: a constraint error
        }),
      ).toThrow(/UNIQUE/);
      immediate(db, () => write(3));
      await gc.durable();
      const reader = other();
      try {
        expect((reader.prepare("SELECT id FROM owners WHERE id LIKE 'own_%' ORDER BY id").all() as Array<{ id: string }>).map((r) => r.id)).toEqual([
          'own_1',
          'own_3',
        ]);
      } finally {
        reader.close();
      }
    });

    it('a batch whose COMMIT fails is rolled back whole and refused to every write in it, and the next batch works', async () => {
      // A deferred foreign key is checked at COMMIT: the batch's COMMIT fails, as on a full disk.
      db.exec('CREATE TABLE IF NOT EXISTS t_child (id INTEGER PRIMARY KEY, parent TEXT REFERENCES owners(id) DEFERRABLE INITIALLY DEFERRED)');
      await gc.durable();
      const ok = (() => {
        immediate(db, () => write(1));
        return gc.durable();
      })();
      immediate(db, () => db.prepare("INSERT INTO t_child (parent) VALUES ('own_missing')").run());
      const bad = gc.durable();
      await expect(ok).rejects.toThrow(/FOREIGN KEY/);
      await expect(bad).rejects.toThrow(/FOREIGN KEY/);
      expect(db.inTransaction).toBe(false);
      expect(owners(db)).toBe(0);
      immediate(db, () => write(2));
      await gc.durable();
      expect(owners(db)).toBe(1);
    });

    it('close() commits the open batch before the connection goes', async () => {
      immediate(db, () => write(7));
      await gc.close();
      db.close();
      db = openDb(join(dir, 'rooms.db'), { synchronous: 'GROUP' });
      gc = new GroupCommit(db, join(dir, 'rooms.db-wal'));
      expect(owners(db)).toBe(1);
    });
  });
});
