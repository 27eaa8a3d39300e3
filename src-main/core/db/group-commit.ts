import { open, type FileHandle } from 'node:fs/promises';
import type { Db } from './open.js';
import { stmt } from './stmt.js';

/**
 * How acknowledged writes reach the disk (docs/performance.md, "Durability and group commit" and
 * "Asynchronous commit"). The connection runs with `synchronous = NORMAL` in WAL mode: a commit
 * writes its frames to the WAL without fsync, so it costs no disk wait on the event loop; the
 * frames are in the OS's page cache, so a crash of the process loses nothing committed. This class
 * runs the `fdatasync` of the WAL file that makes them survive power loss, on libuv's thread pool,
 * one sync for every write committed before it started.
 *
 * - Group commit (`wait: true`, `GROUP`): before a write is acknowledged (a tool result, an API
 *   response), `durable()` waits for a sync that started after it. Ten concurrent calls pay for one
 *   or two syncs, not ten. A read that may have seen another call's unsynced write waits too.
 * - Asynchronous commit (`wait: false`, `ASYNC`, the server's default): `durable()` schedules the
 *   sync and resolves at once. A sync starts as soon as one is due: at the end of the turn (after
 *   the answer) following a quiet spell, at most one every `intervalMs` under load (each sync costs the machine CPU and disk time, so one
 *   per write would cost more than the writes). An answer waits only when an earlier acknowledged
 *   write has waited over `maxLagMs` for its sync (a slow disk), or after a sync failed.
 *
 * Whether anything was written since the last sync is read from SQLite's `total_changes()` (rows
 * changed on this connection since it opened): with nothing unsynced, `durable()` does nothing.
 */
export interface GroupCommitOptions {
  /** true: group commit (the answer waits for its sync); false: asynchronous commit. */
  wait?: boolean;
  /** Asynchronous commit: at most one sync started per this many ms while writes keep coming. */
  intervalMs?: number;
  /** Asynchronous commit: an acknowledged write waiting longer than this for its sync makes answers wait. */
  maxLagMs?: number;
  /** Milliseconds on a monotonic clock (tests replace it). */
  now?: () => number;
  /** Told when a sync fails and when syncs work again (the server's log): nobody awaits an asynchronous sync. */
  onTrouble?: (line: string) => void;
}

export const ASYNC_SYNC_INTERVAL_MS = 25;
export const ASYNC_MAX_LAG_MS = 100;

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
  private readonly intervalMs: number;
  private readonly maxLagMs: number;
  private readonly now: () => number;
  private readonly onTrouble: (line: string) => void;
  /** Acknowledged but not yet synced, oldest first: [total_changes() when acknowledged, when]. */
  private readonly unsynced: Array<[number, number]> = [];
  /** When the last sync started (asynchronous commit spaces them by intervalMs). */
  private lastStart = -Infinity;
  /** The next sync, scheduled for when intervalMs has passed since the last one started. */
  private timer: NodeJS.Timeout | undefined;
  /** A sync due now, started once this turn's answers are written (see schedule). */
  private soon: NodeJS.Immediate | undefined;
  /** Set when a sync failed: answers wait for the next sync (and see its error) until one succeeds. */
  private failing = false;

  constructor(
    private readonly db: Db,
    private readonly walFile: string,
    opts: GroupCommitOptions = {},
  ) {
    this.wait = opts.wait ?? true;
    this.intervalMs = opts.intervalMs ?? ASYNC_SYNC_INTERVAL_MS;
    this.maxLagMs = opts.maxLagMs ?? ASYNC_MAX_LAG_MS;
    this.now = opts.now ?? (() => performance.now());
    this.onTrouble = opts.onTrouble ?? (() => {});
  }

  /** A sync failed and none has succeeded since: every answer waits for the disk. */
  get syncFailing(): boolean {
    return this.failing;
  }

  private changes(): number {
    return (stmt(this.db, 'SELECT total_changes() AS n').get() as { n: number }).n;
  }

  /**
   * Group commit: resolves once every write this connection committed before the call is on disk.
   * Asynchronous commit: schedules the sync that covers them and resolves at once (see the class).
   */
  durable(): Promise<void> {
    if (this.closed || !this.db.open) return Promise.resolve();
    const now = this.changes();
    if (now <= this.synced) return Promise.resolve();
    if (this.wait || this.failing) return this.cover(now);
    const last = this.unsynced[this.unsynced.length - 1];
    const at = this.now();
    if (!last || last[0] < now) this.unsynced.push([now, at]);
    if (at - this.unsynced[0]![1] > this.maxLagMs) {
      this.cancelTimer();
      return this.cover(now);
    }
    this.schedule();
    return Promise.resolve();
  }

  /** Acknowledged writes whose sync has not ended yet (asynchronous commit; tests and benches read it). */
  get unsyncedAcks(): number {
    return this.unsynced.length;
  }

  /** Asynchronous commit: a sync at the end of this turn, or when intervalMs has passed since the last one started. */
  private schedule(): void {
    if (this.running || this.queued || this.timer || this.soon) return; // the running sync reschedules as it ends
    const due = this.lastStart + this.intervalMs - this.now();
    if (due <= 0) {
      // Not now but at the end of this turn (its check phase): durable() is called before the
      // answer is written, and an fdatasync begun then shares the machine with the answer's
      // writev and the client's wake-up (docs/performance.md, "The sync after the answer").
      this.soon = setImmediate(() => {
        this.soon = undefined;
        this.start().catch(() => undefined); // a failure shows as `failing`: the next answers wait
      });
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.start().catch(() => undefined);
    }, due);
    this.timer.unref();
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.soon) clearImmediate(this.soon);
    this.soon = undefined;
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
    this.cancelTimer();
    this.lastStart = this.now();
    const done = this.sync().then(
      () => {
        this.synced = Math.max(this.synced, upTo);
        if (this.failing) this.onTrouble('the database log is being synced to disk again');
        this.failing = false;
        while (this.unsynced.length > 0 && this.unsynced[0]![0] <= this.synced) this.unsynced.shift();
      },
      (err: unknown) => {
        if (!this.failing) {
          this.onTrouble(`syncing the database log to disk failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); answers now wait for the disk until a sync succeeds`);
        }
        this.failing = true;
        throw err;
      },
    );
    const run = { upTo, done };
    this.running = run;
    const ended = () => {
      if (this.running === run) this.running = undefined;
      // Writes acknowledged while this sync ran are covered by the next one.
      if (!this.wait && !this.closed && this.unsynced.length > 0) this.schedule();
    };
    done.then(ended, ended);
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

  /** Syncs what was acknowledged and not yet synced, waits for the sync in flight and lets the WAL file go (the core is closing). */
  async close(): Promise<void> {
    const pending = this.timer !== undefined || this.soon !== undefined;
    this.cancelTimer();
    await this.queued?.catch(() => undefined);
    await this.running?.done.catch(() => undefined);
    if (pending || this.unsynced.length > 0) await this.start().catch(() => undefined);
    this.closed = true;
    await this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }
}
