import { chmodSync, closeSync, constants, copyFileSync, createWriteStream, lstatSync, mkdirSync, openSync, readdirSync, writeSync, type WriteStream } from 'node:fs';

/**
 * Writing exports and backups without ever writing through a link someone planted
 * (docs/backup.md "Outputs are private and never written through links"): everything is built
 * in a fresh private folder (0700) and renamed into place; files are created 0600 with
 * O_EXCL|O_NOFOLLOW (a name that already exists, a link included, fails instead of being
 * followed), folders 0700; a destination that is a symbolic link is refused.
 */

// O_NOFOLLOW does not exist on Windows; O_EXCL alone already refuses an existing name there.
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Is there a symbolic link at this path (not followed)? */
export function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Refuses a destination that is a symbolic link, or that exists and is not an empty real folder. */
export function checkFreshDest(dest: string, what: string, conflict: (msg: string) => Error): void {
  let st;
  try {
    st = lstatSync(dest);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) throw conflict(`the ${what} destination ${dest} is a symbolic link; give a new path (links are never written through)`);
  if (!st.isDirectory() || readdirSync(dest).length > 0) throw conflict(`${dest} already exists; choose a new name`);
}

/** A new private folder (0700); fails if the name exists (a link included). */
export function mkdirPrivate(path: string): void {
  mkdirSync(path, { mode: DIR_MODE });
  if (isLink(path)) throw new Error(`${path} became a symbolic link`);
  chmodSync(path, DIR_MODE);
}

/** Creates the missing folders of a relative path under `root`, each new and private (root itself exists). */
export function mkdirsPrivate(root: string, rel: string[]): string {
  let p = root;
  for (const part of rel) {
    p = `${p}/${part}`;
    try {
      const st = lstatSync(p);
      if (!st.isDirectory() || st.isSymbolicLink()) throw new Error(`${p} is not a folder`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      mkdirPrivate(p);
    }
  }
  return p;
}

/** Writes a new file, 0600, never through a link. */
export function writeFilePrivate(path: string, data: string | Buffer): void {
  const fd = openSync(path, CREATE_NEW, FILE_MODE);
  try {
    const b = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < b.length) off += writeSync(fd, b, off, b.length - off);
  } finally {
    closeSync(fd);
  }
}

/** A write stream to a new file, 0600, never through a link. */
export function createPrivateWriteStream(path: string): WriteStream {
  const fd = openSync(path, CREATE_NEW, FILE_MODE);
  return createWriteStream(path, { fd });
}

/** Copies a file to a new name (never through a link there), 0600. */
export function copyFilePrivate(src: string, dst: string): void {
  copyFileSync(src, dst, constants.COPYFILE_EXCL);
  if (isLink(dst)) throw new Error(`${dst} became a symbolic link`);
  chmodSync(dst, FILE_MODE);
}
