import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newSecret, sha256Hex } from '../util/ids.js';
import { getOwner, type Owner } from './store.js';

export const LOGIN_LINK_TTL_MS = 5 * 60 * 1000;
export const UI_SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const SESSION_COOKIE = 'ar_session';

export function createLoginLink(db: Db, baseUrl: string, ownerId: string): { url: string; expires_at: string } {
  const token = newSecret('arl_');
  const expires = Date.now() + LOGIN_LINK_TTL_MS;
  stmt(db, 'INSERT INTO login_links (token_hash, owner_id, expires_at) VALUES (?, ?, ?)').run(sha256Hex(token), ownerId, expires);
  return { url: `${baseUrl}/login?token=${token}`, expires_at: new Date(expires).toISOString() };
}

export type LoginOutcome = { ok: true; sessionId: string; owner: Owner } | { ok: false; why: 'unknown' | 'used' | 'expired' };

/** Redeems a one-time login link for a UI session; a link works once and for five minutes. */
export function redeemLoginLink(db: Db, token: string): LoginOutcome {
  return db.transaction((): LoginOutcome => {
    const r = stmt(db, 'SELECT owner_id, expires_at, used_at FROM login_links WHERE token_hash = ?').get(sha256Hex(token)) as
      | { owner_id: string; expires_at: number; used_at: number | null }
      | undefined;
    if (!r) return { ok: false, why: 'unknown' };
    if (r.used_at !== null) return { ok: false, why: 'used' };
    if (r.expires_at < Date.now()) return { ok: false, why: 'expired' };
    stmt(db, 'UPDATE login_links SET used_at = ? WHERE token_hash = ?').run(Date.now(), sha256Hex(token));
    return { ok: true, ...createUiSession(db, r.owner_id) };
  })();
}

export function createUiSession(db: Db, ownerId: string): { sessionId: string; owner: Owner } {
  const sessionId = newSecret('ars_');
  stmt(db, 'INSERT INTO ui_sessions (id_hash, owner_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
    sha256Hex(sessionId),
    ownerId,
    Date.now(),
    Date.now() + UI_SESSION_TTL_MS,
  );
  return { sessionId, owner: getOwner(db, ownerId)! };
}

export function ownerBySession(db: Db, sessionId: string): Owner | undefined {
  const r = stmt(db, 'SELECT owner_id, expires_at FROM ui_sessions WHERE id_hash = ?').get(sha256Hex(sessionId)) as
    | { owner_id: string; expires_at: number }
    | undefined;
  if (!r || r.expires_at < Date.now()) return undefined;
  return getOwner(db, r.owner_id);
}

export function endUiSession(db: Db, sessionId: string): void {
  stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(sha256Hex(sessionId));
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}
