import { chmodSync, closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { FILE_MODE, isLink, writeFilePrivate } from './private-fs.js';
import { copyFile, cp, link, mkdir, open as openFile, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import type { z } from 'zod';
import type { backupProgress, backupRecord } from '../../../shared/schemas/backup.js';
import { pinBlobs } from '../files/blobs.js';
import { AppError } from '../errors/app-error.js';
import { checkDatabase, sha256OfFile } from './verify.js';

/**
 * A backup is a folder: `rooms.db` (a consistent copy made with SQLite's online backup API,
 * WAL content included), `blobs/` holding exactly the blobs that copy references, the small
 * files of the home (owner token, signing keys, settings: a backup holds secrets and is
 * written 0700), and `manifest.json`. It is built under `DEST.partial-*` and renamed to DEST
 * only once verified, so a folder named like a backup is always a complete one.
 */
export const MANIFEST = 'manifest.json';
export const BACKUP_FORMAT: BackupResult['format'] = 'agent-rooms-backup';

/** Entries of the home that are not copied as "small files" (the database and blobs are copied their own way). */
const NOT_CONFIG = new Set(['rooms.db', 'rooms.db-wal', 'rooms.db-shm', 'rooms.db-journal', 'blobs', 'backups', 'exports', 'server.json', 'browser', 'desktop.log']);

export type BackupKind = 'manual' | 'auto';

export type BackupProgress = z.output<typeof backupProgress>;

/** A verified backup, as its manifest records it and POST /v1/backups answers it (the shared schema). */
export type BackupResult = z.output<typeof backupRecord>;

export interface BackupOptions {
  home: string;
  dest: string;
  kind: BackupKind;
  source: BackupResult['source'];
  onProgress?: (p: BackupProgress) => void;
}

function fsyncPath(p: string) {
  try {
    const fd = openSync(p, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some filesystems refuse to fsync a folder
  }
}

/**
 * Blobs never change once written (a new content is a new file, renamed into place), so on the
 * same filesystem (e.g. `<home>/backups`) a hard link is an exact, instant copy that costs no
 * space; elsewhere (another disk) the bytes are copied and fsynced. Verification reads either.
 */
export async function linkOrCopy(src: string, dst: string): Promise<void> {
  try {
    await link(src, dst);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK' && code !== 'EACCES') throw err;
  }
  await copyFile(src, dst);
  await fsyncAsync(dst);
}

async function fsyncAsync(p: string) {
  const fh = await openFile(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Where a backup may go: not inside the home, except under `<home>/backups`; nowhere that exists with content. */
export function checkDest(home: string, dest: string): string {
  const abs = resolve(dest);
  const h = resolve(home);
  const inside = (root: string) => abs === root || abs.startsWith(root + sep);
  if (inside(h) && !(inside(join(h, 'backups')) && abs !== join(h, 'backups'))) {
    throw new AppError('INVALID_ARGUMENT', `a backup cannot go inside the home it copies (${abs}); use a folder outside it, or under ${join(h, 'backups')}`);
  }
  if (isLink(abs)) throw new AppError('CONFLICT', `the backup destination ${abs} is a symbolic link; give a new path (links are never written through)`);
  if (existsSync(abs)) {
    if (!statSync(abs).isDirectory() || readdirSync(abs).length > 0) {
      throw new AppError('CONFLICT', `the backup destination ${abs} already exists and is not an empty folder; choose a new name`);
    }
  }
  return abs;
}

function stamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/** `<home>/backups/<kind>-<UTC time>`, unique. */
export function defaultDest(home: string, kind: BackupKind): string {
  const base = join(home, 'backups', `${kind}-${stamp()}`);
  return existsSync(base) ? `${base}-${randomBytes(2).toString('hex')}` : base;
}

export async function backupHome(opts: BackupOptions): Promise<BackupResult> {
  const started = Date.now();
  const dest = checkDest(opts.home, opts.dest);
  const progress = opts.onProgress ?? (() => {});
  mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
  const tmp = `${dest}.partial-${randomBytes(4).toString('hex')}`;
  mkdirSync(tmp, { mode: 0o700 });
  // From here until the blobs are copied, the home removes no blob the copy may reference.
  const unpin = pinBlobs(opts.home);
  try {
    const dbCopy = join(tmp, 'rooms.db');
    // A connection of its own holding one read transaction: the copy is the database as of this
    // instant (every write acknowledged before it), and writers on other connections go on
    // meanwhile without restarting the copy (they would, from a connection without a snapshot).
    const src = new Database(join(opts.home, 'rooms.db'), { fileMustExist: true });
    try {
      src.pragma('busy_timeout = 5000');
      src.exec('BEGIN');
      src.prepare('SELECT COUNT(*) FROM sqlite_master').get();
      await src.backup(dbCopy, {
        progress: ({ totalPages, remainingPages }) => {
          progress({ phase: 'database', done: totalPages - remainingPages, total: totalPages });
          // Pages per step: big enough to be quick, small enough to keep each step short on the event loop.
          return 1000;
        },
      });
    } finally {
      if (src.inTransaction) src.exec('COMMIT');
      src.close();
    }
    // It holds every message: 0600 whatever the umask made of it.
    chmodSync(dbCopy, FILE_MODE);
    await fsyncAsync(dbCopy);
    progress({ phase: 'verify', done: 0, total: 1 });
    const check = await checkDatabase(dbCopy);
    if (!check.ok) throw new AppError('INTERNAL', `the copied database failed integrity_check: ${check.problems.slice(0, 3).join('; ')}`);
    progress({ phase: 'verify', done: 1, total: 1 });

    let blobBytes = 0;
    const total = check.blobs.length;
    let copied = 0;
    const copyOne = async (sha256: string) => {
      const rel = join('blobs', sha256.slice(0, 2), sha256);
      const src = join(opts.home, rel);
      const dst = join(tmp, rel);
      if (!existsSync(src)) {
        throw new AppError(
          'INTERNAL',
          `the home is missing blob ${sha256}, which a ready file version references; the backup stopped (the home itself needs attention: see docs/backup.md)`,
        );
      }
      await mkdir(dirname(dst), { recursive: true, mode: 0o700 });
      await linkOrCopy(src, dst);
      // Verify what landed on disk, not what was read.
      const got = await sha256OfFile(dst);
      if (got !== sha256) throw new AppError('INTERNAL', `blob ${sha256} copied with different content (sha256 ${got}); the home's copy may be damaged`);
      blobBytes += (await stat(dst)).size;
      copied++;
      if (copied % 25 === 0 || copied === total) progress({ phase: 'blobs', done: copied, total });
    };
    // A few at a time: concurrent fsyncs share the filesystem's journal commits.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(8, total) }, async () => {
        while (next < total) await copyOne(check.blobs[next++]!.sha256);
      }),
    );
    unpin();
    for (const d of new Set(check.blobs.map((b) => join(tmp, 'blobs', b.sha256.slice(0, 2))))) await fsyncAsync(d).catch(() => {});

    const extras = readdirSync(opts.home).filter((n) => !NOT_CONFIG.has(n) && !n.startsWith('server.lock'));
    for (const name of extras) {
      // Links are not copied (neither at the top nor inside a folder): a backup holds the home's own files only.
      const st = lstatSync(join(opts.home, name));
      if (!st.isFile() && !st.isDirectory()) continue;
      await cp(join(opts.home, name), join(tmp, name), { recursive: true, preserveTimestamps: true, filter: (from) => !isLink(from) });
    }
    progress({ phase: 'files', done: extras.length, total: extras.length });

    const result: BackupResult = {
      format: BACKUP_FORMAT,
      version: 1,
      path: dest,
      kind: opts.kind,
      source: opts.source,
      home: resolve(opts.home),
      created_at: new Date(started).toISOString(),
      duration_ms: Date.now() - started,
      db_bytes: statSync(dbCopy).size,
      schema_version: check.schema,
      counts: check.counts,
      blobs: total,
      blob_bytes: blobBytes,
      verified: { integrity_check: 'ok', blobs_sha256: total },
    };
    writeFilePrivate(join(tmp, MANIFEST), JSON.stringify(result, null, 2) + '\n');
    fsyncPath(join(tmp, MANIFEST));
    fsyncPath(tmp);
    if (existsSync(dest)) rmSync(dest, { recursive: true, force: true }); // an empty folder (checked above)
    renameSync(tmp, dest);
    fsyncPath(dirname(dest));
    progress({ phase: 'done', done: 1, total: 1 });
    recordLast(opts.home, result);
    return result;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  } finally {
    unpin();
  }
}

/** The last successful backup of this home, wherever it went (`<home>/backups/last.json`). */
export function recordLast(home: string, result: BackupResult) {
  try {
    mkdirSync(join(home, 'backups'), { recursive: true, mode: 0o700 });
    const file = join(home, 'backups', 'last.json');
    const tmpFile = `${file}.tmp-${randomBytes(4).toString('hex')}`;
    writeFilePrivate(tmpFile, JSON.stringify(result, null, 2) + '\n');
    renameSync(tmpFile, file);
  } catch {
    // the backup itself is done; only the "last backup" note is missing
  }
}

export function readLast(home: string): BackupResult | null {
  try {
    const r = JSON.parse(readFileSync(join(home, 'backups', 'last.json'), 'utf8')) as BackupResult;
    return r.format === BACKUP_FORMAT ? r : null;
  } catch {
    return null;
  }
}

/** Backups found under `<home>/backups` (complete ones only), newest first. */
export function listBackups(home: string): BackupResult[] {
  const dir = join(home, 'backups');
  if (!existsSync(dir)) return [];
  const out: BackupResult[] = [];
  for (const name of readdirSync(dir)) {
    const m = join(dir, name, MANIFEST);
    if (!existsSync(m)) continue;
    try {
      const r = JSON.parse(readFileSync(m, 'utf8')) as BackupResult;
      if (r.format !== BACKUP_FORMAT) continue;
      out.push({ ...r, path: join(dir, name) });
    } catch {
      // not ours
    }
  }
  return out.sort((a, b) => b.created_at.localeCompare(a.created_at));
}
