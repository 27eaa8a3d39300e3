import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb, type Db } from '../../src-main/core/db/open.js';
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
});
