import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { HomeError } from './home-errors.js';

/**
 * One server per home: `<home>/server.lock` names the process that owns the home (a server,
 * or a backup/restore run from the command line). It is taken before anything else in the
 * home is opened and released on a clean stop. A lock whose process is gone (kill -9, power
 * loss) is stale and taken over.
 *
 * The lock file is written complete to a temp file and hard-linked into place (link fails
 * if the name exists), so nobody ever reads a half-written lock. A stale lock is replaced
 * under `server.lock.takeover` (itself O_EXCL), re-read inside it, so two processes finding
 * the same stale lock never both win.
 */
export type LockKind = 'serve' | 'backup' | 'restore';

export interface LockInfo {
  pid: number;
  kind: LockKind;
  started_at: string;
  hostname: string;
  /** The server's base URL once it listens (serve only). */
  url?: string | null;
}

export interface HomeLock {
  readonly file: string;
  readonly info: LockInfo;
  /** Records the server's URL in the lock (after listen). */
  setUrl(url: string): void;
  /** Removes the lock if it is still ours; idempotent. */
  release(): void;
}

export const LOCK_NAME = 'server.lock';

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLockFile(file: string): { raw: string; info?: LockInfo } | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const info = JSON.parse(raw) as LockInfo;
    if (typeof info.pid !== 'number') return { raw };
    return { raw, info };
  } catch {
    return { raw };
  }
}

/** The live holder of the home's lock, or undefined (no lock, or a stale one). */
export function liveLockHolder(home: string): LockInfo | undefined {
  const cur = readLockFile(join(home, LOCK_NAME));
  return cur?.info && pidAlive(cur.info.pid) ? cur.info : undefined;
}

function writeDurably(file: string, text: string, flag: string) {
  const fd = openSync(file, flag, 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function sleepSync(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function inUseError(home: string, holder: LockInfo): HomeError {
  const what =
    holder.kind === 'serve'
      ? `an agent-rooms server${holder.url ? ` at ${holder.url}` : ''} (pid ${holder.pid})`
      : `agent-rooms ${holder.kind} (pid ${holder.pid})`;
  const fix =
    holder.kind === 'serve'
      ? `use that server${holder.url ? ` (${holder.url})` : ''}, or stop it first (kill ${holder.pid}), or choose another home with --home DIR`
      : `wait for it to finish, or choose another home with --home DIR`;
  return new HomeError('HOME_IN_USE', `the home ${home} is in use by ${what}, started ${holder.started_at}. Fix: ${fix}.`, {
    path: home,
    pid: holder.pid,
    url: holder.url ?? null,
  });
}

/** Takes the home's lock or throws HomeError HOME_IN_USE naming the holder. */
export function acquireHomeLock(home: string, kind: LockKind): HomeLock {
  const file = join(home, LOCK_NAME);
  const info: LockInfo = { pid: process.pid, kind, started_at: new Date().toISOString(), hostname: hostname(), url: null };
  const text = () => JSON.stringify(info, null, 2) + '\n';

  const tryCreate = (): boolean => {
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeDurably(tmp, text(), 'wx');
    try {
      linkSync(tmp, file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      rmSync(tmp, { force: true });
    }
  };

  for (let attempt = 0; attempt < 50; attempt++) {
    if (tryCreate()) return handle(file, info, text);
    const cur = readLockFile(file);
    if (!cur) continue; // released meanwhile: try again
    if (cur.info && pidAlive(cur.info.pid)) throw inUseError(home, cur.info);
    // Stale (its process is gone, or the file is not a lock at all): take it over, one taker at a time.
    const takeover = `${file}.takeover`;
    try {
      writeDurably(takeover, String(process.pid), 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // Someone else is taking over; a takeover file older than 10 s belongs to a process that died doing it.
      try {
        if (Date.now() - statSync(takeover).mtimeMs > 10_000) rmSync(takeover, { force: true });
      } catch {
        // gone already
      }
      sleepSync(20);
      continue;
    }
    try {
      const again = readLockFile(file);
      if (again && again.raw !== cur.raw) continue; // another process took over first: look again
      if (again) unlinkSync(file);
      if (tryCreate()) return handle(file, info, text);
    } finally {
      rmSync(takeover, { force: true });
    }
  }
  throw new HomeError('HOME_IN_USE', `the home ${home} lock (${file}) keeps changing hands; is another agent-rooms starting? Try again.`, { path: home });
}

function handle(file: string, info: LockInfo, text: () => string): HomeLock {
  let released = false;
  const ours = () => {
    const cur = readLockFile(file);
    return !!cur?.info && cur.info.pid === info.pid && cur.info.started_at === info.started_at;
  };
  return {
    file,
    info,
    setUrl(url: string) {
      if (released || !ours()) return;
      info.url = url;
      const tmp = `${file}.${process.pid}.url.tmp`;
      writeDurably(tmp, text(), 'w');
      renameSync(tmp, file);
    },
    release() {
      if (released) return;
      released = true;
      try {
        if (ours()) unlinkSync(file);
      } catch {
        // already gone (e.g. the home was moved aside by restore)
      }
    },
  };
}
