import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newSecret, sha256Hex } from '../util/ids.js';
import { getOwner, type Owner } from './store.js';

export const LOGIN_LINK_TTL_MS = 5 * 60 * 1000;
/**
 * A UI session ends after this long without a request (each request renews it), and in any
 * case UI_SESSION_MAX_MS after sign-in. The page keeps the token in sessionStorage, so it also
 * ends with the tab.
 */
export const UI_SESSION_IDLE_MS = 8 * 3600 * 1000;
export const UI_SESSION_MAX_MS = 7 * 24 * 3600 * 1000;
/** Renewal writes at most this often per session (every request reads it). */
const RENEW_EVERY_MS = 60 * 1000;
/** A ticket for the EventSource URL (which cannot carry a header): single use, short-lived. */
export const EVENTS_TICKET_TTL_MS = 60 * 1000;

/**
 * The two kinds of one-time link. One minted through the API (`POST /v1/login-links`) can be
 * planted by anyone holding an owner token (login CSRF), so the page asks before it signs in
 * with it. One minted in-process by the machine's user (the printed link, `agent-rooms open`,
 * the desktop window) signs in at once. The kind is part of the secret: rewriting a prefix
 * changes the hash, so an API link cannot pass for the other kind.
 */
const LINK_PREFIX = { direct: 'arl_', confirm: 'arc_' } as const;
export type LoginLinkKind = keyof typeof LINK_PREFIX;

export function createLoginLink(db: Db, baseUrl: string, ownerId: string, kind: LoginLinkKind = 'direct'): { url: string; expires_at: string } {
  const token = newSecret(LINK_PREFIX[kind]);
  const expires = Date.now() + LOGIN_LINK_TTL_MS;
  stmt(db, 'INSERT INTO login_links (token_hash, owner_id, expires_at) VALUES (?, ?, ?)').run(sha256Hex(token), ownerId, expires);
  return { url: `${baseUrl}/login?token=${token}`, expires_at: new Date(expires).toISOString() };
}

export type LinkProblem = 'unknown' | 'used' | 'expired';
export type LinkPreview = { ok: true; owner: Owner; confirm: boolean } | { ok: false; why: LinkProblem };
export type LoginOutcome = { ok: true; sessionId: string; owner: Owner; idleExpiresAt: number; expiresAt: number } | { ok: false; why: LinkProblem };

function linkRow(db: Db, token: string) {
  return stmt(db, 'SELECT owner_id, expires_at, used_at FROM login_links WHERE token_hash = ?').get(sha256Hex(token)) as
    | { owner_id: string; expires_at: number; used_at: number | null }
    | undefined;
}

function linkProblem(r: ReturnType<typeof linkRow>): LinkProblem | undefined {
  if (!r) return 'unknown';
  if (r.used_at !== null) return 'used';
  if (r.expires_at < Date.now()) return 'expired';
  return undefined;
}

/** Who a link signs in as, and whether the page must ask first; the link stays unused. */
export function previewLoginLink(db: Db, token: string): LinkPreview {
  if (typeof token !== 'string' || !token) return { ok: false, why: 'unknown' };
  const r = linkRow(db, token);
  const why = linkProblem(r);
  if (why) return { ok: false, why };
  const owner = getOwner(db, r!.owner_id);
  if (!owner) return { ok: false, why: 'unknown' };
  return { ok: true, owner, confirm: !token.startsWith(LINK_PREFIX.direct) };
}

/** Redeems a one-time login link for a UI session; a link works once and for five minutes. */
export function redeemLoginLink(db: Db, token: string): LoginOutcome {
  if (typeof token !== 'string' || !token) return { ok: false, why: 'unknown' };
  return immediate(db, (): LoginOutcome => {
    const r = linkRow(db, token);
    const why = linkProblem(r);
    if (why) return { ok: false, why };
    stmt(db, 'UPDATE login_links SET used_at = ? WHERE token_hash = ?').run(Date.now(), sha256Hex(token));
    return { ok: true, ...createUiSession(db, r!.owner_id) };
  });
}

/**
 * A UI session token (`ars_…`), sent by the page as `Authorization: Bearer`. `expires_at`
 * holds the idle deadline (moved forward on use, never past created_at + UI_SESSION_MAX_MS).
 */
export function createUiSession(db: Db, ownerId: string): { sessionId: string; owner: Owner; idleExpiresAt: number; expiresAt: number } {
  const sessionId = newSecret('ars_');
  const now = Date.now();
  const idleExpiresAt = now + UI_SESSION_IDLE_MS;
  stmt(db, 'INSERT INTO ui_sessions (id_hash, owner_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(sha256Hex(sessionId), ownerId, now, idleExpiresAt);
  return { sessionId, owner: getOwner(db, ownerId)!, idleExpiresAt, expiresAt: now + UI_SESSION_MAX_MS };
}

/** The session's owner, renewing its idle deadline; undefined once idle too long or past its maximum age. */
export function ownerBySession(db: Db, sessionId: string): Owner | undefined {
  const hash = sha256Hex(sessionId);
  const r = stmt(db, 'SELECT owner_id, created_at, expires_at FROM ui_sessions WHERE id_hash = ?').get(hash) as
    | { owner_id: string; created_at: number; expires_at: number }
    | undefined;
  const now = Date.now();
  if (!r) return undefined;
  const max = r.created_at + UI_SESSION_MAX_MS;
  if (r.expires_at < now || max < now) {
    stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(hash);
    return undefined;
  }
  const renewed = Math.min(now + UI_SESSION_IDLE_MS, max);
  if (renewed - r.expires_at >= RENEW_EVERY_MS) stmt(db, 'UPDATE ui_sessions SET expires_at = ? WHERE id_hash = ?').run(renewed, hash);
  return getOwner(db, r.owner_id);
}

export function endUiSession(db: Db, sessionId: string): void {
  stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(sha256Hex(sessionId));
}

/** Drops sessions past their idle or maximum age (the table would otherwise keep every sign-in). */
export function sweepUiSessions(db: Db): number {
  const now = Date.now();
  return stmt(db, 'DELETE FROM ui_sessions WHERE expires_at < ? OR created_at < ?').run(now, now - UI_SESSION_MAX_MS).changes;
}

const tickets = new WeakMap<Db, Map<string, { ownerId: string; exp: number }>>();

/** A single-use ticket that lets one EventSource connection of this owner open within a minute. */
export function createEventsTicket(db: Db, ownerId: string): { ticket: string; expires_at: string } {
  let m = tickets.get(db);
  if (!m) tickets.set(db, (m = new Map()));
  const now = Date.now();
  if (m.size > 1000) for (const [k, v] of m) if (v.exp < now) m.delete(k);
  const ticket = newSecret('art_');
  m.set(sha256Hex(ticket), { ownerId, exp: now + EVENTS_TICKET_TTL_MS });
  return { ticket, expires_at: new Date(now + EVENTS_TICKET_TTL_MS).toISOString() };
}

/** Spends a ticket: the owner it was issued to, once, before it expires. */
export function redeemEventsTicket(db: Db, ticket: string): Owner | undefined {
  const m = tickets.get(db);
  const key = sha256Hex(ticket);
  const t = m?.get(key);
  if (!t) return undefined;
  m!.delete(key);
  if (t.exp < Date.now()) return undefined;
  return getOwner(db, t.ownerId);
}
