import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newSecret, sha256Hex } from '../util/ids.js';
import { getOwner, type Owner } from './store.js';
import type { Socket } from 'node:net';

export const LOGIN_LINK_TTL_MS = 5 * 60 * 1000;
/**
 * The window keeps its session in localStorage, so it outlives the browser (docs/security.md,
 * item 5). A session ends UI_SESSION_IDLE_MS after its last request (each request moves the
 * deadline forward: sliding), and in any case UI_SESSION_MAX_MS after sign-in, when the owner
 * signs in again with a fresh link.
 */
export const UI_SESSION_IDLE_MS = 30 * 24 * 3600 * 1000;
export const UI_SESSION_MAX_MS = 90 * 24 * 3600 * 1000;
/** Renewal writes at most this often per session (every request reads it). */
const RENEW_EVERY_MS = 60 * 1000;
/** At most this many window sessions per owner: signing in past it ends the least recently used. */
export const UI_SESSIONS_PER_OWNER = 100;
/** A ticket for the EventSource URL (which cannot carry a header): single use, short-lived. */
export const EVENTS_TICKET_TTL_MS = 60 * 1000;

/**
 * The sessions' clock, per database: the server's time unless a test sets another (sliding
 * expiry is tested by moving this clock, not by waiting).
 */
const clocks = new WeakMap<Db, () => number>();
export function setSessionClock(db: Db, now: (() => number) | undefined): void {
  if (now) clocks.set(db, now);
  else clocks.delete(db);
}
function nowOf(db: Db): number {
  return (clocks.get(db) ?? Date.now)();
}

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
  const expires = nowOf(db) + LOGIN_LINK_TTL_MS;
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

function linkProblem(r: ReturnType<typeof linkRow>, now: number): LinkProblem | undefined {
  if (!r) return 'unknown';
  if (r.used_at !== null) return 'used';
  if (r.expires_at < now) return 'expired';
  return undefined;
}

/** Who a link signs in as, and whether the page must ask first; the link stays unused. */
export function previewLoginLink(db: Db, token: string): LinkPreview {
  if (typeof token !== 'string' || !token) return { ok: false, why: 'unknown' };
  const r = linkRow(db, token);
  const why = linkProblem(r, nowOf(db));
  if (why) return { ok: false, why };
  const owner = getOwner(db, r!.owner_id);
  if (!owner) return { ok: false, why: 'unknown' };
  return { ok: true, owner, confirm: !token.startsWith(LINK_PREFIX.direct) };
}

/** Redeems a one-time login link for a UI session; a link works once and for five minutes. */
export function redeemLoginLink(db: Db, token: string, client = ''): LoginOutcome {
  if (typeof token !== 'string' || !token) return { ok: false, why: 'unknown' };
  return immediate(db, (): LoginOutcome => {
    const r = linkRow(db, token);
    const now = nowOf(db);
    const why = linkProblem(r, now);
    if (why) return { ok: false, why };
    stmt(db, 'UPDATE login_links SET used_at = ? WHERE token_hash = ?').run(now, sha256Hex(token));
    return { ok: true, ...createUiSession(db, r!.owner_id, client) };
  });
}

/**
 * How Settings names a session: derived from the token's hash, so the page can tell which one is
 * its own from the token it holds (src-renderer/src/api.ts `sessionPublicId`) and the id gives
 * nothing back of the token.
 */
export function sessionPublicId(tokenHash: string): string {
  return `uis_${tokenHash.slice(0, 16)}`;
}

/**
 * A UI session token (`ars_…`), sent by the page as `Authorization: Bearer`. `expires_at`
 * holds the idle deadline (moved forward on use, never past created_at + UI_SESSION_MAX_MS).
 * An owner keeps at most UI_SESSIONS_PER_OWNER: the least recently used beyond that end.
 */
export function createUiSession(db: Db, ownerId: string, client = ''): { sessionId: string; owner: Owner; idleExpiresAt: number; expiresAt: number } {
  const sessionId = newSecret('ars_');
  const hash = sha256Hex(sessionId);
  const now = nowOf(db);
  const idleExpiresAt = now + UI_SESSION_IDLE_MS;
  immediate(db, () => {
    stmt(db, 'INSERT INTO ui_sessions (id_hash, owner_id, created_at, expires_at, public_id, last_used_at, client) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      hash,
      ownerId,
      now,
      idleExpiresAt,
      sessionPublicId(hash),
      now,
      client.slice(0, 80),
    );
    const ended = stmt(
      db,
      'SELECT id_hash FROM ui_sessions WHERE owner_id = ? ORDER BY last_used_at DESC, created_at DESC LIMIT -1 OFFSET ?',
    ).all(ownerId, UI_SESSIONS_PER_OWNER) as Array<{ id_hash: string }>;
    for (const e of ended) stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(e.id_hash);
    closeStreams(db, ended.map((e) => e.id_hash));
  });
  return { sessionId, owner: getOwner(db, ownerId)!, idleExpiresAt, expiresAt: now + UI_SESSION_MAX_MS };
}

/** The session's owner and hash, renewing its idle deadline; undefined once idle too long, past its maximum age or revoked. */
export function uiSession(db: Db, sessionId: string): { owner: Owner; hash: string } | undefined {
  const hash = sha256Hex(sessionId);
  const r = stmt(db, 'SELECT owner_id, created_at, expires_at FROM ui_sessions WHERE id_hash = ?').get(hash) as
    | { owner_id: string; created_at: number; expires_at: number }
    | undefined;
  const now = nowOf(db);
  if (!r) return undefined;
  const max = r.created_at + UI_SESSION_MAX_MS;
  if (r.expires_at < now || max < now) {
    stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(hash);
    return undefined;
  }
  // Sliding: each use moves the deadline to a whole idle period from now, bounded by the maximum age.
  const renewed = Math.min(now + UI_SESSION_IDLE_MS, max);
  if (renewed - r.expires_at >= RENEW_EVERY_MS) stmt(db, 'UPDATE ui_sessions SET expires_at = ?, last_used_at = ? WHERE id_hash = ?').run(renewed, now, hash);
  const owner = getOwner(db, r.owner_id);
  return owner && { owner, hash };
}

/** The session's owner (uiSession without the hash). */
export function ownerBySession(db: Db, sessionId: string): Owner | undefined {
  return uiSession(db, sessionId)?.owner;
}

/** Ends one window session, named by its token's hash (the Owner record of its request carries it): its event streams close too. */
export function endUiSession(db: Db, hash: string): void {
  stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(hash);
  closeStreams(db, [hash]);
}

/** A window session as Settings lists it: never its token or hash. */
export interface UiSessionRow {
  session_id: string;
  client: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

/** The owner's live sessions, the most recently used first (at most UI_SESSIONS_PER_OWNER exist). */
export function listUiSessions(db: Db, ownerId: string): UiSessionRow[] {
  const now = nowOf(db);
  const rows = stmt(
    db,
    'SELECT public_id, client, created_at, last_used_at, expires_at FROM ui_sessions WHERE owner_id = ? AND expires_at >= ? AND created_at >= ? ORDER BY last_used_at DESC, created_at DESC LIMIT ?',
  ).all(ownerId, now, now - UI_SESSION_MAX_MS, UI_SESSIONS_PER_OWNER) as Array<{ public_id: string; client: string; created_at: number; last_used_at: number; expires_at: number }>;
  return rows.map((r) => ({
    session_id: r.public_id,
    client: r.client,
    created_at: new Date(r.created_at).toISOString(),
    last_used_at: new Date(r.last_used_at).toISOString(),
    expires_at: new Date(Math.min(r.expires_at, r.created_at + UI_SESSION_MAX_MS)).toISOString(),
  }));
}

/**
 * Ends the owner's sessions named (`only`), or all but `keep`: their next request is refused and
 * their event streams close now. Another owner's session id matches nothing. Returns how many ended.
 */
export function revokeUiSessions(db: Db, ownerId: string, which: { only: string } | { keep?: string }): number {
  return immediate(db, () => {
    const rows = (
      'only' in which
        ? stmt(db, 'SELECT id_hash FROM ui_sessions WHERE owner_id = ? AND public_id = ?').all(ownerId, which.only)
        : stmt(db, 'SELECT id_hash FROM ui_sessions WHERE owner_id = ? AND public_id != ?').all(ownerId, which.keep ?? '')
    ) as Array<{ id_hash: string }>;
    for (const r of rows) stmt(db, 'DELETE FROM ui_sessions WHERE id_hash = ?').run(r.id_hash);
    closeStreams(db, rows.map((r) => r.id_hash));
    return rows.length;
  });
}

/** Drops sessions past their idle or maximum age (the table would otherwise keep every sign-in). */
export function sweepUiSessions(db: Db): number {
  const now = nowOf(db);
  return stmt(db, 'DELETE FROM ui_sessions WHERE expires_at < ? OR created_at < ?').run(now, now - UI_SESSION_MAX_MS).changes;
}

const tickets = new WeakMap<Db, Map<string, { ownerId: string; exp: number; session?: string }>>();

/** Live event-stream tickets one owner may hold at once (docs/security.md item 19). */
export const EVENTS_TICKETS_PER_OWNER = 16;

/**
 * A single-use ticket that lets one EventSource connection of this owner open within a minute.
 * `session`: the hash of the window session that asked, so the stream closes when it ends.
 */
export function createEventsTicket(db: Db, ownerId: string, session?: string): { ticket: string; expires_at: string } {
  let m = tickets.get(db);
  if (!m) tickets.set(db, (m = new Map()));
  const now = nowOf(db);
  if (m.size > 1000) for (const [k, v] of m) if (v.exp < now) m.delete(k);
  // Each owner holds a few live tickets at most (a window asks for one per stream it opens): asking
  // for more gives up that owner's oldest, so no owner can grow the map, and none can spend another's.
  let held = 0;
  let oldest: string | undefined;
  for (const [k, v] of m) {
    if (v.ownerId !== ownerId) continue;
    held++;
    oldest ??= k;
  }
  if (held >= EVENTS_TICKETS_PER_OWNER && oldest) m.delete(oldest);
  const ticket = newSecret('art_');
  m.set(sha256Hex(ticket), { ownerId, exp: now + EVENTS_TICKET_TTL_MS, session });
  return { ticket, expires_at: new Date(now + EVENTS_TICKET_TTL_MS).toISOString() };
}

/** Spends a ticket: the owner it was issued to (and the session that asked, if any), once, before it expires. */
export function redeemEventsTicket(db: Db, ticket: string): { owner: Owner; session?: string } | undefined {
  const m = tickets.get(db);
  const key = sha256Hex(ticket);
  const t = m?.get(key);
  if (!t) return undefined;
  m!.delete(key);
  if (t.exp < nowOf(db)) return undefined;
  // The session may have ended since the ticket was given.
  if (t.session && !stmt(db, 'SELECT 1 FROM ui_sessions WHERE id_hash = ?').get(t.session)) return undefined;
  const owner = getOwner(db, t.ownerId);
  return owner && { owner, session: t.session };
}

/**
 * The event streams each window session holds open: a revoked session's stream would otherwise
 * go on receiving its owner's events after its next request is refused.
 */
const streams = new WeakMap<Db, Map<string, Set<Socket>>>();

/** Remembers the connection of an event stream opened with a session's ticket, until it closes. */
export function holdSessionStream(db: Db, session: string, socket: Socket): void {
  let bySession = streams.get(db);
  if (!bySession) streams.set(db, (bySession = new Map()));
  let set = bySession.get(session);
  if (!set) bySession.set(session, (set = new Set()));
  set.add(socket);
  socket.once('close', () => {
    set.delete(socket);
    if (set.size === 0 && bySession.get(session) === set) bySession.delete(session);
  });
}

function closeStreams(db: Db, hashes: string[]): void {
  const bySession = streams.get(db);
  if (!bySession) return;
  for (const h of hashes) {
    const set = bySession.get(h);
    if (!set) continue;
    bySession.delete(h);
    // After the commit: the stream's page then asks for a ticket, is refused, and shows the sign-in page.
    for (const socket of set) setImmediate(() => socket.destroy());
  }
}
