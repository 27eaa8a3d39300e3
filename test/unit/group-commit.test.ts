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
async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

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

  it('asynchronous commit: durable() starts the covering sync and resolves before it ends', async () => {
    const agc = new GroupCommit(db, join(dir, 'rooms.db-wal'), { wait: false });
    try {
      await agc.durable();
      await waitUntil(() => agc.unsyncedAcks === 0);
      const before = agc.syncs;
      write(1);
      const upTo = changes();
      let settled = false;
      await agc.durable().then(() => (settled = true));
      // The answer may go: the write is acknowledged, its sync started and still running.
      expect(settled).toBe(true);
      expect(agc.syncs).toBe(before);
      expect(agc.unsyncedAcks).toBe(1);
      await waitUntil(() => agc.syncs === before + 1 && agc.syncedChanges >= upTo);
      expect(agc.unsyncedAcks).toBe(0);
    } finally {
      await agc.close();
    }
  });

  it('asynchronous commit: a due sync starts once the turn that asked ends (after its answer), covering what that turn wrote after', async () => {
    const agc = new GroupCommit(db, join(dir, 'rooms.db-wal'), { wait: false, intervalMs: 0 });
    try {
      await agc.durable();
      await waitUntil(() => agc.unsyncedAcks === 0);
      const before = agc.syncs;
      write(1);
      void agc.durable();
      // Still in the same turn: what the server does after the answer (the deliveries written behind it).
      write(2);
      const upTo = changes();
      await waitUntil(() => agc.syncs > before);
      expect(agc.syncs).toBe(before + 1);
      expect(agc.syncedChanges).toBeGreaterThanOrEqual(upTo);
    } finally {
      await agc.close();
    }
  });

  it('asynchronous commit: once an acknowledged write has waited longer than maxLagMs, answers wait for the sync', async () => {
    let clock = 0;
    const agc = new GroupCommit(db, join(dir, 'rooms.db-wal'), { wait: false, maxLagMs: 50, now: () => clock });
    try {
      await agc.durable();
      await waitUntil(() => agc.unsyncedAcks === 0);
      write(1);
      await agc.durable(); // acknowledged at clock 0, its sync on the thread pool
      write(2);
      clock = 51; // the first acknowledged write has now waited 51 ms (the clock is the test's)
      const upTo = changes();
      await agc.durable();
      // This answer waited: the syncs caught up with everything written before it.
      expect(agc.syncedChanges).toBeGreaterThanOrEqual(upTo);
      expect(agc.unsyncedAcks).toBe(0);
    } finally {
      await agc.close();
    }
  });

  it('asynchronous commit: under a stream of writes, one sync per interval; close() syncs what is left', async () => {
    const clock = 0;
    const agc = new GroupCommit(db, join(dir, 'rooms.db-wal'), { wait: false, intervalMs: 10_000, maxLagMs: 60_000, now: () => clock });
    try {
      const before = agc.syncs;
      write(1);
      await agc.durable(); // the first sync starts at once (none started within the interval)
      await waitUntil(() => agc.syncs === before + 1 && agc.unsyncedAcks === 0);
      for (let i = 2; i < 12; i++) {
        write(i);
        await agc.durable();
      }
      // Ten more acknowledged writes inside the interval: they wait for the next slot, not a sync each.
      await new Promise((r) => setTimeout(r, 50));
      expect(agc.syncs).toBe(before + 1);
      expect(agc.unsyncedAcks).toBe(10);
      const upTo = changes();
      await agc.close();
      expect(agc.syncs).toBe(before + 2);
      expect(agc.syncedChanges).toBeGreaterThanOrEqual(upTo);
      expect(agc.unsyncedAcks).toBe(0);
    } finally {
      await agc.close();
    }
  });

  it('asynchronous commit: after a sync failed, answers wait for the next sync and see its error', async () => {
    // A directory where the WAL should be: opening it for the sync fails (EISDIR), as a failing disk would.
    const told: string[] = [];
    const agc = new GroupCommit(db, dir, { wait: false, onTrouble: (l) => told.push(l) });
    try {
      write(1);
      await agc.durable(); // acknowledged at once; its sync fails in the background
      await waitUntil(() => agc.syncFailing);
      expect(told).toEqual([expect.stringMatching(/syncing the database log to disk failed \(EISDIR\); answers now wait/)]);
      write(2);
      await expect(agc.durable()).rejects.toThrow();
      expect(agc.unsyncedAcks).toBeGreaterThan(0);
    } finally {
      await agc.close();
    }
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
