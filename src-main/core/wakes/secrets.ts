import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, basename, isAbsolute, join, relative, resolve } from 'node:path';
import type { Core } from '../core.js';
import { storedGitTokens } from '../workspace/store.js';
import { allRunnerEnvValues } from './runners.js';

/**
 * What a runner must never reach or print (docs/security.md, item 1): the data home as its
 * working folder, and the server's secrets in the output tails shown back to humans.
 */

/** A path with its symlinks resolved; for a path not created yet, its nearest existing ancestor's. */
function realish(p: string): string {
  let cur = resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(cur), ...rest.reverse());
    } catch {
      const up = dirname(cur);
      if (up === cur) return resolve(p);
      rest.push(basename(cur));
      cur = up;
    }
  }
}

function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Is `p` the data home or anything inside it (as written, or once symlinks are resolved)? */
export function isInsideHome(home: string, p: string): boolean {
  return within(resolve(home), resolve(p)) || within(realish(home), realish(p));
}

/** The parent of every agent's scratch folder: this user's own, in the system temp folder. */
export function scratchBase(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return join(tmpdir(), `agent-rooms-runs${uid === undefined ? '' : `-${uid}`}`);
}

/**
 * A per-agent scratch folder for runs that have no working folder of their own: under the
 * system temp folder, never in the data home. The parent is this user's alone (0700, owned by
 * us, not a symlink), so another local user cannot plant it in advance.
 */
export function scratchFolder(plate: string): string {
  if (!/^[A-Z0-9-]{1,64}$/.test(plate)) throw new Error('unexpected plate format');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const base = scratchBase();
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const st = lstatSync(base);
  if (!st.isDirectory() || st.isSymbolicLink() || (uid !== undefined && st.uid !== uid)) {
    throw new Error('the runs scratch folder is not a private folder of this user');
  }
  if (uid !== undefined && (st.mode & 0o077) !== 0) chmodSync(base, 0o700);
  const dir = join(base, plate);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function readIfFile(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

/** A key file's text and the forms of it a process could print (PEM body lines, decoded bytes as hex and base64url). */
function keyForms(text: string): string[] {
  const out = [text.trim()];
  const body = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('-----'));
  out.push(...body.filter((l) => l.length >= 16), body.join(''));
  const b64 = body.join('');
  if (/^[A-Za-z0-9+/=_-]+$/.test(b64)) {
    const bytes = Buffer.from(b64, 'base64');
    if (bytes.length >= 16) out.push(bytes.toString('hex'), bytes.toString('base64url'), bytes.toString('base64'));
  }
  return out;
}

/**
 * Every secret the server holds in clear or can open: the primary owner token, the files of
 * `<home>/keys` (signing key, URL and at-rest keys), the rooms' git tokens, and every
 * runner's env values. Issued secrets of other owners exist only as hashes here; the tail
 * masks them by their prefixes (runners.ts, maskIssuedSecrets).
 */
export function knownSecrets(core: Core): string[] {
  const home = core.config.home;
  const found: string[] = [];
  const token = readIfFile(join(home, 'owner-token'));
  if (token) found.push(token.trim());
  try {
    for (const name of readdirSync(join(home, 'keys'))) {
      const text = readIfFile(join(home, 'keys', name));
      if (text) found.push(...keyForms(text));
    }
  } catch {
    // no keys folder yet
  }
  found.push(...storedGitTokens(core));
  found.push(...allRunnerEnvValues(core.db));
  // Very short values would mask ordinary words; they are no secret worth the name.
  return [...new Set(found.filter((s) => typeof s === 'string' && s.length >= 6))].sort((a, b) => b.length - a.length);
}
