import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { conflict, invalid } from '../errors/app-error.js';
import { sha256Hex } from '../util/ids.js';

/** JSON with sorted keys, so equal arguments fingerprint equally. */
export function stableStringify(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`)
    .join(',')}}`;
}

/**
 * Runs `act` once per (scope, key). Call inside the write transaction that `act` belongs to,
 * so the check, the act and the stored result commit together: a concurrent duplicate waits
 * for the lock and then finds the stored result. The same key with other arguments is a CONFLICT.
 * `scope` names the target resource, e.g. `send_message:<room>:<plate>`.
 */
export function withIdempotency<T>(db: Db, scope: string, key: string | undefined, args: unknown, act: () => T): T & { replayed?: boolean } {
  if (key === undefined) return act() as T & { replayed?: boolean };
  if (key.length === 0 || key.length > 200) throw invalid('idempotency_key must be 1 to 200 characters');
  const fingerprint = sha256Hex(stableStringify(args));
  const hit = stmt(db, 'SELECT fingerprint, result FROM idempotency WHERE scope = ? AND key = ?').get(scope, key) as
    | { fingerprint: string; result: string }
    | undefined;
  if (hit) {
    if (hit.fingerprint !== fingerprint) {
      throw conflict('this idempotency_key was already used with different arguments; use a new key', 'idempotency_key_reused');
    }
    return { ...(JSON.parse(hit.result) as T), replayed: true };
  }
  const result = act();
  stmt(db, 'INSERT INTO idempotency (scope, key, fingerprint, result, created_at) VALUES (?, ?, ?, ?, ?)').run(
    scope,
    key,
    fingerprint,
    JSON.stringify(result),
    Date.now(),
  );
  return result as T & { replayed?: boolean };
}
