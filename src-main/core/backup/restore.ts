import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { cp, copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { acquireHomeLock, LOCK_NAME } from '../db/lock.js';
import { prepareHome } from '../db/home.js';
import { checkDatabase, sha256OfFile } from './verify.js';
import { MANIFEST, linkOrCopy } from './backup.js';
import { isLink } from './private-fs.js';

export interface RestoreResult {
  home: string;
  from: string;
  /** Where the previous home was moved (kept, never deleted), or null when there was none. */
  previous: string | null;
  blobs: number;
}

function stamp(): string {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Restores a backup folder into the home. Refused (HOME_IN_USE) while a server or another
 * backup/restore holds the home. The backup is verified first (integrity_check and every
 * blob's sha256), then copied into a sibling folder, and only then swapped in: the previous
 * home is renamed to `<home>.before-restore-<time>` and kept; its `backups/` folder moves into
 * the restored home so the snapshot history stays in one place.
 */
export async function restoreHome(srcArg: string, homeArg: string, onProgress: (p: { phase: string; done: number; total: number }) => void = () => {}): Promise<RestoreResult> {
  const src = resolve(srcArg);
  const home = resolve(homeArg);
  if (!existsSync(join(src, 'rooms.db')) || !statSync(src).isDirectory()) {
    throw new Error(`${src} is not a backup folder (it has no rooms.db); give the folder "agent-rooms backup" wrote`);
  }
  if (src === home || home.startsWith(src + sep)) throw new Error(`cannot restore ${src} onto itself`);
  const homeExisted = existsSync(home);
  if (homeExisted) prepareHome(home);
  else mkdirSync(dirname(home), { recursive: true });
  const lock = homeExisted ? acquireHomeLock(home, 'restore') : undefined;
  const staging = `${home}.restoring-${stamp()}`;
  try {
    onProgress({ phase: 'verify', done: 0, total: 1 });
    const check = await checkDatabase(join(src, 'rooms.db'), true);
    if (!check.ok) throw new Error(`the backup's database ${join(src, 'rooms.db')} fails integrity_check: ${check.problems.slice(0, 3).join('; ')}; choose another backup`);
    const total = check.blobs.length;
    if (isLink(join(src, 'rooms.db'))) throw new Error(`the backup's rooms.db is a symbolic link; a restore copies only real files, choose another backup`);
    for (let i = 0; i < total; i++) {
      const { sha256 } = check.blobs[i]!;
      const p = join(src, 'blobs', sha256.slice(0, 2), sha256);
      if (!existsSync(p)) throw new Error(`the backup misses blob ${sha256} its database references; choose another backup`);
      // A hard link to a symbolic link would put that link into the home: refused.
      if (isLink(p)) throw new Error(`the backup's blob ${sha256} is a symbolic link; a restore copies only real files, choose another backup`);
      const got = await sha256OfFile(p);
      if (got !== sha256) throw new Error(`the backup's blob ${sha256} is damaged (sha256 ${got}); choose another backup`);
      if (i % 25 === 0 || i === total - 1) onProgress({ phase: 'verify blobs', done: i + 1, total });
    }

    mkdirSync(staging, { mode: 0o700 });
    await copyFile(join(src, 'rooms.db'), join(staging, 'rooms.db'));
    for (let i = 0; i < total; i++) {
      const { sha256 } = check.blobs[i]!;
      const rel = join('blobs', sha256.slice(0, 2), sha256);
      await mkdir(join(staging, dirname(rel)), { recursive: true, mode: 0o700 });
      await linkOrCopy(join(src, rel), join(staging, rel));
      if (i % 25 === 0 || i === total - 1) onProgress({ phase: 'copy blobs', done: i + 1, total });
    }
    mkdirSync(join(staging, 'blobs'), { recursive: true, mode: 0o700 });
    for (const name of readdirSync(src)) {
      if (name.startsWith('rooms.db') || name === 'blobs' || name === MANIFEST || name.startsWith(LOCK_NAME) || name === 'server.json') continue;
      // Symbolic links in a backup are dropped, at the top and inside folders: the restored home holds only real files (nothing pointing outside it).
      if (isLink(join(src, name))) continue;
      await cp(join(src, name), join(staging, name), { recursive: true, preserveTimestamps: true, filter: (from) => !isLink(from) });
    }

    let previous: string | null = null;
    if (homeExisted) {
      previous = `${home}.before-restore-${stamp()}`;
      renameSync(home, previous);
      // The lock went with the old home: it is no lock of the restored one.
      rmSync(join(previous, LOCK_NAME), { force: true });
    }
    renameSync(staging, home);
    if (previous && existsSync(join(previous, 'backups'))) {
      try {
        renameSync(join(previous, 'backups'), join(home, 'backups'));
      } catch {
        // left with the previous home; nothing lost
      }
    }
    onProgress({ phase: 'done', done: 1, total: 1 });
    return { home, from: src, previous, blobs: total };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  } finally {
    lock?.release();
  }
}
