import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { dirname, isAbsolute } from 'node:path';
import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { atRestKey } from '../auth/keys.js';

/**
 * Runner `env` values may hold secrets (API keys for the agent's CLI): they are stored
 * encrypted, as the workspace git token is (AES-256-GCM, the same key in <home>/keys, mode
 * 0600), with the runner's plate and host as additional data so a sealed value copied to
 * another runner's row does not open. Stored as `sealed:1:<base64>`; an empty env stays `{}`.
 */
const PREFIX = 'sealed:1:';

/** The key for secrets at rest (auth/keys.ts), read once per store; the same one the workspace token uses. */
function keyOf(db: Db): Buffer {
  // The store lives at <home>/rooms.db: the key sits beside the other keys of that home.
  if (db.memory || !isAbsolute(db.name)) throw new Error('runner env sealing needs a store in a data home');
  return atRestKey(db, dirname(db.name));
}

const aad = (plate: string, host: string) => Buffer.from(`runner-env\u0000${plate}\u0000${host}`, 'utf8');

/** The stored form of a runner's env. */
export function sealEnv(db: Db, plate: string, host: string, env: Record<string, string>): string {
  if (Object.keys(env).length === 0) return '{}';
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(db), iv);
  c.setAAD(aad(plate, host));
  const ct = Buffer.concat([c.update(JSON.stringify(env), 'utf8'), c.final()]);
  return PREFIX + Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
}

/** A runner's env from its stored form (sealed, or the plain JSON of earlier versions). */
export function openEnv(db: Db, plate: string, host: string, stored: string): Record<string, string> {
  if (!stored.startsWith(PREFIX)) return JSON.parse(stored) as Record<string, string>;
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64');
  const d = createDecipheriv('aes-256-gcm', keyOf(db), raw.subarray(0, 12));
  d.setAAD(aad(plate, host));
  d.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8')) as Record<string, string>;
}

/** Seals the env of runners stored in clear by earlier versions; runs at every start. */
export function sealStoredRunnerEnvs(db: Db): number {
  const rows = stmt(db, `SELECT plate, host, env FROM runners WHERE env NOT LIKE 'sealed:%' AND env <> '{}'`).all() as Array<{
    plate: string;
    host: string;
    env: string;
  }>;
  for (const r of rows) {
    stmt(db, 'UPDATE runners SET env = ? WHERE plate = ? AND host = ?').run(sealEnv(db, r.plate, r.host, openEnv(db, r.plate, r.host, r.env)), r.plate, r.host);
  }
  return rows.length;
}
