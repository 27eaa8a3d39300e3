import { chmodSync, closeSync, existsSync, lstatSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The data home holds the owner token, the signing and encryption keys and every room's data:
 * only this user may read it. At every start the home and each folder inside it are set to
 * 0700 and each file to 0600 (copies, restores and older versions may have left 0644/0755),
 * and a warning names what had been open to other users. Symbolic links are neither followed
 * nor changed. On Windows, modes do not apply: the home is protected by the user profile ACLs.
 */
export interface HomeRepair {
  /** Paths (relative to the home, "." for the home) that other users could read or enter. */
  exposed: string[];
  repaired: number;
}

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export function secureHome(home: string): HomeRepair {
  const out: HomeRepair = { exposed: [], repaired: 0 };
  if (process.platform === 'win32') return out;
  const visit = (path: string, rel: string) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // removed meanwhile
    }
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? DIR_MODE : FILE_MODE;
    const mode = st.mode & 0o777;
    if (mode & 0o077) out.exposed.push(rel);
    if (mode !== want && (st.isDirectory() || st.isFile())) {
      chmodSync(path, want);
      out.repaired++;
    }
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name), rel === '.' ? name : `${rel}/${name}`);
  };
  visit(home, '.');
  return out;
}

/** A one-line warning for the log, or undefined when nothing was open to others. */
export function exposureWarning(home: string, r: HomeRepair): string | undefined {
  if (r.exposed.length === 0) return undefined;
  const shown = r.exposed.slice(0, 5).join(', ') + (r.exposed.length > 5 ? ` and ${r.exposed.length - 5} more` : '');
  return `warning: the data home ${home} was readable by other users of this machine (${shown}); its folders are now 0700 and its files 0600`;
}

/** Creates an empty file with mode 0600 if it does not exist (SQLite then gives its -wal and -shm the same mode). */
export function touchPrivate(file: string): void {
  if (existsSync(file)) return;
  try {
    closeSync(openSync(file, 'wx', FILE_MODE));
  } catch {
    // created meanwhile
  }
}
