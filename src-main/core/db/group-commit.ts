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
export class GroupCommit {
  private handle: FileHandle | undefined;
  /** total_changes() when the last completed sync started: everything up to it is on disk (0: nothing known, e.g. migrations just ran). */
  private synced = 0;
  private running: { upTo: number; done: Promise<void> } | undefined;
  private queued: Promise<void> | undefined;
  private closed = false;
  /** fdatasyncs done so far (benchmarks and tests read it). */
  syncs = 0;

  constructor(
    private readonly db: Db,
    private readonly walFile: string,
  ) {}

  private changes(): number {
    return (stmt(this.db, 'SELECT total_changes() AS n').get() as { n: number }).n;
  }

  /** Resolves once every write this connection committed before the call is on disk. */
  durable(): Promise<void> {
    if (this.closed || !this.db.open) return Promise.resolve();
    const now = this.changes();
    if (now <= this.synced) return Promise.resolve();
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
    const done = this.sync().then(() => {
      this.synced = Math.max(this.synced, upTo);
    });
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
