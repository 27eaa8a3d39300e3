import { open, type FileHandle } from 'node:fs/promises';
import type { Db } from './open.js';
import { stmt } from './stmt.js';

/**
 * Group commit (docs/performance.md, "Durability and group commit"). The connection runs with
 * `synchronous = NORMAL` in WAL mode: a commit writes its frames to the WAL without fsync, so it
 * costs no disk wait on the event loop. Before a write is acknowledged (a tool result, an API
 * response), `durable()` waits for one `fdatasync` of the WAL file, run on libuv's thread pool and
 * shared by every write committed before it started: ten concurrent calls pay for one or two
 * syncs, not ten, and the event loop serves other requests meanwhile. An acknowledged write is on
 * disk as with `synchronous = FULL`; what is lost on power failure is only what nobody was told
 * had happened yet (background work such as the dispatcher's bookkeeping), as with a crash a
 * moment earlier.
 *
 * Whether anything was written since the last sync is read from SQLite's `total_changes()` (rows
 * changed on this connection since it opened): a read while nothing is unsynced never waits; a read
 * that may have seen another call's unsynced write waits for that sync too, so no answer shows a
 * write a power cut could still take back.
 */
export interface GroupCommitOptions {
  /**
   * false (asynchronous commit, `ASYNC`): `durable()` starts or queues the covering sync and
   * resolves at once, unless an earlier acknowledged write has waited longer than `maxLagMs` for
   * its sync (then it waits like group commit). docs/performance.md, "Asynchronous commit".
   */
  wait?: boolean;
  maxLagMs?: number;
  /** Milliseconds on a monotonic clock (tests replace it). */
  now?: () => number;
}

/** How long an acknowledged write may wait for its sync before answers wait too (asynchronous commit). */
export const ASYNC_MAX_LAG_MS = 50;

export class GroupCommit {
  private handle: FileHandle | undefined;
  /** total_changes() when the last completed sync started: everything up to it is on disk (0: nothing known, e.g. migrations just ran). */
  private synced = 0;
  private running: { upTo: number; done: Promise<void> } | undefined;
  private queued: Promise<void> | undefined;
  private closed = false;
  /** fdatasyncs done so far (benchmarks and tests read it). */
  syncs = 0;

  private readonly wait: boolean;
  private readonly maxLagMs: number;
  private readonly now: () => number;
  /** Acknowledged but not yet synced, oldest first: [total_changes() when acknowledged, when]. */
  private readonly unsynced: Array<[number, number]> = [];
  /** Set when a sync failed: answers wait for the next sync (and see its error) until one succeeds. */
  private failing = false;

  constructor(
    private readonly db: Db,
    private readonly walFile: string,
    opts: GroupCommitOptions = {},
  ) {
    this.wait = opts.wait ?? true;
    this.maxLagMs = opts.maxLagMs ?? ASYNC_MAX_LAG_MS;
    this.now = opts.now ?? (() => performance.now());
  }

  private changes(): number {
    return (stmt(this.db, 'SELECT total_changes() AS n').get() as { n: number }).n;
  }

  /**
   * Group commit: resolves once every write this connection committed before the call is on disk.
   * Asynchronous commit: the sync that covers them is started (or queued behind the one in
   * flight) and the promise resolves at once, unless syncs lag (see `GroupCommitOptions`).
   */
  durable(): Promise<void> {
    if (this.closed || !this.db.open) return Promise.resolve();
    const now = this.changes();
    if (now <= this.synced) return Promise.resolve();
    const covered = this.cover(now);
    if (this.wait || this.failing) return covered;
    const last = this.unsynced[this.unsynced.length - 1];
    if (!last || last[0] < now) this.unsynced.push([now, this.now()]);
    const oldest = this.unsynced[0]!;
    if (this.now() - oldest[1] > this.maxLagMs) return covered;
    // Nobody awaits this promise now: a failure shows as `failing`, and the next answers wait.
    covered.catch(() => undefined);
    return Promise.resolve();
  }

  /** Writes acknowledged without their sync, right now (asynchronous commit; tests and benches read it). */
  get unsyncedAcks(): number {
    return this.unsynced.length;
  }

  /** The promise of the sync that covers every write up to `now`, started or queued here. */
  private cover(now: number): Promise<void> {
    if (this.running && now <= this.running.upTo) return this.running.done;
    if (this.queued) return this.queued;
    if (this.running) {
      // The sync in flight may have started before this write: the next one covers it, for
      // everyone who arrives until it starts.
      this.queued ??= this.running.done
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          return this.start();
        });
      return this.queued;
    }
    return this.start(now);
  }

  /** Starts a sync covering every write up to `upTo` (read again when the start was queued). */
  private start(upTo?: number): Promise<void> {
    if (this.closed || !this.db.open) return Promise.resolve();
    upTo ??= this.changes();
    if (upTo <= this.synced) return Promise.resolve();
    const done = this.sync().then(
      () => {
        this.synced = Math.max(this.synced, upTo);
        this.failing = false;
        while (this.unsynced.length > 0 && this.unsynced[0]![0] <= this.synced) this.unsynced.shift();
      },
      (err: unknown) => {
        this.failing = true;
        throw err;
      },
    );
    const run = { upTo, done };
    this.running = run;
    const clear = () => {
      if (this.running === run) this.running = undefined;
    };
    done.then(clear, clear);
    return done;
  }

  private async sync(): Promise<void> {
    if (!this.handle) {
      // SQLite removes the WAL only when the last connection closes, and this connection is open:
      // the file held here stays the WAL for the life of the core (no stat before each sync).
      try {
        this.handle = await open(this.walFile, 'r+');
      } catch (err) {
        // No WAL file: nothing was written in WAL mode yet (or it was checkpointed and removed).
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw err;
      }
    }
    await this.handle.datasync();
    this.syncs++;
  }

  /** total_changes() up to which every write is known to be on disk. */
  get syncedChanges(): number {
    return this.synced;
  }

  /** Waits for the sync in flight and lets the WAL file go (the core is closing). */
  async close(): Promise<void> {
    this.closed = true;
    await this.queued?.catch(() => undefined);
    await this.running?.done.catch(() => undefined);
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
