import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HomeError } from './home-errors.js';

function errno(err: unknown): string {
  return String((err as NodeJS.ErrnoException)?.code ?? '');
}

function ownedByMe(path: string): boolean {
  try {
    return typeof process.getuid !== 'function' || statSync(path).uid === process.getuid();
  } catch {
    return false;
  }
}

/**
 * Makes sure the home is a folder this process may read and write, before the lock or the
 * database is touched, and says which path is wrong and how to fix it otherwise.
 */
export function prepareHome(home: string): void {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
  } catch (err) {
    const code = errno(err);
    if (code === 'EROFS') throw new HomeError('HOME_READ_ONLY', `cannot create the home ${home}: the disk is read-only. Fix: choose a home on a writable disk with --home DIR.`, { path: home });
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new HomeError('HOME_PERMISSIONS', `the home ${home} is not a folder (a file has that name, or a part of the path is a file). Fix: choose another home with --home DIR, or move that file away.`, { path: home });
    if (code === 'EACCES' || code === 'EPERM')
      throw new HomeError('HOME_PERMISSIONS', `cannot create the home ${home}: permission denied. Fix: create it yourself (mkdir -p "${home}") with your user as owner, or choose another home with --home DIR.`, { path: home });
    throw err;
  }
  if (!statSync(home).isDirectory()) {
    throw new HomeError('HOME_PERMISSIONS', `the home ${home} is not a folder. Fix: choose another home with --home DIR, or move that file away.`, { path: home });
  }
  checkWritable(home, 'folder', home);
  for (const name of ['rooms.db', 'rooms.db-wal', 'rooms.db-shm', 'blobs', 'keys', 'owner-token']) {
    const p = join(home, name);
    if (existsSync(p)) checkWritable(p, name === 'blobs' || name === 'keys' ? 'folder' : 'file', home);
  }
}

function checkWritable(path: string, what: 'folder' | 'file', home: string) {
  const mode = constants.R_OK | constants.W_OK | (what === 'folder' ? constants.X_OK : 0);
  try {
    accessSync(path, mode);
  } catch (err) {
    const code = errno(err);
    if (code === 'EROFS')
      throw new HomeError('HOME_READ_ONLY', `the ${what} ${path} is on a read-only disk. Fix: remount it read-write, or copy the home to a writable disk and use --home DIR.`, { path });
    if (code === 'EACCES' || code === 'EPERM') {
      if (ownedByMe(path))
        throw new HomeError(
          'HOME_READ_ONLY',
          `the ${what} ${path} is read-only for you. Fix: chmod u+rw${what === 'folder' ? 'x' : ''} "${path}", or choose another home with --home DIR.`,
          { path },
        );
      throw new HomeError(
        'HOME_PERMISSIONS',
        `the ${what} ${path} belongs to another user or its permissions deny you access. Fix: give it back to your user (sudo chown -R "$(id -un)" "${home}"), or choose another home with --home DIR.`,
        { path },
      );
    }
    throw err;
  }
}
