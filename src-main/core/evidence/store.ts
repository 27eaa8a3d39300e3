import { createHash } from 'node:crypto';
import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import type { AppError } from '../errors/app-error.js';
import type { EvidenceAccess } from '../core.js';
import { ulid } from '../util/ids.js';

/** The version of the agent-facing contract (tools and their shapes). */
export const SURFACE_VERSION = '2026-11-22.1';

export function newErrorId(): string {
  return `err_${ulid()}`;
}

/**
 * The shape of arguments: names and JSON types, never values. Only names the tool
 * declares are kept; other keys are counted, since a key name can itself carry a secret.
 */
export function argShape(value: unknown, known?: ReadonlySet<string>, depth = 0): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    if (depth >= 2) return `array(${value.length})`;
    const kinds = [...new Set(value.slice(0, 20).map((v) => JSON.stringify(argShape(v, undefined, depth + 1))))];
    return { array: kinds.map((k) => JSON.parse(k) as unknown), length: value.length };
  }
  if (typeof value === 'object') {
    if (depth >= 2 || !known) return 'object';
    const out: Record<string, unknown> = {};
    let unknownKeys = 0;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (known.has(k)) out[k] = argShape(v, undefined, depth + 1);
      else unknownKeys++;
    }
    if (unknownKeys) out['<unknown keys>'] = unknownKeys;
    return out;
  }
  return typeof value;
}

export interface EvidenceInput {
  errorId: string;
  surface: 'mcp' | 'http' | 'v1';
  tool?: string;
  error: AppError;
  args?: unknown;
  knownArgs?: ReadonlySet<string>;
  plate?: string;
  ownerId?: string;
  requestId?: string;
  /**
   * Who may see which room and task (core.ports.evidenceAccess: the rooms and tasks capabilities
   * answer, evidence imports neither). Without it no room or task id is kept.
   */
  access?: EvidenceAccess;
}

export function fingerprintOf(parts: Array<string | undefined>): string {
  return createHash('sha256').update(parts.map((p) => p ?? '').join('\u0000')).digest('hex').slice(0, 24);
}

function shapeKeysOf(shape: unknown): string {
  return shape && typeof shape === 'object' ? Object.keys(shape as object).sort().join(',') : String(shape);
}

function stringArg(args: unknown, name: string): string | undefined {
  const v = args && typeof args === 'object' ? (args as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v.length <= 200 ? v : undefined;
}

/** Whether the caller (an agent by plate, else a human by owner) is a member of the room. */
function mayUseRoom(db: Db, e: EvidenceInput, roomId: string): boolean {
  try {
    if (e.plate) return e.access?.isMember(db, roomId, { plate: e.plate }) === true;
    if (e.ownerId) return e.access?.isMember(db, roomId, { ownerId: e.ownerId }) === true;
  } catch {
    // a damaged store records no ids rather than unchecked ones
  }
  return false;
}

function roomOfTask(db: Db, e: EvidenceInput, taskId: string): string | undefined {
  return e.access?.roomOfTask(db, taskId);
}

/**
 * The room and task ids the caller was authorised for: those named by the error or the
 * arguments, kept only when the caller is a member of the room (of the task's room).
 * A refused caller (NOT_MEMBER) leaves no room id behind.
 */
export function authorisedIds(db: Db, e: EvidenceInput): { roomId?: string; taskId?: string } {
  const out: { roomId?: string; taskId?: string } = {};
  for (const r of [e.error.roomId, stringArg(e.args, 'room')]) {
    if (r && mayUseRoom(db, e, r)) {
      out.roomId = r;
      break;
    }
  }
  for (const t of [e.error.taskId, stringArg(e.args, 'task_id')]) {
    if (!t) continue;
    let room: string | undefined;
    try {
      room = roomOfTask(db, e, t);
    } catch {
      room = undefined;
    }
    if (room && mayUseRoom(db, e, room)) {
      out.taskId = t;
      out.roomId ??= room;
      break;
    }
  }
  return out;
}

/** Identifies "the same call" (caller, tool, argument names) across a failure and a later retry. */
export function callKey(plate: string | undefined, tool: string | undefined, shapeKeys: string): string {
  // An in-memory map key only: no need to hash it (this runs on every successful call).
  return ['call', plate ?? '', tool ?? '', shapeKeys].join('\u0000');
}

/** The argument names of a stored shape, as callKey wants them. */
export function shapeKeysOfStored(argShapeJson: string): string {
  try {
    return shapeKeysOf(JSON.parse(argShapeJson));
  } catch {
    return '';
  }
}

const lastSuccess = new WeakMap<Db, Map<string, number>>();

/** Notes that a call succeeded, so a failure that a retry fixed is not reported (docs/contract.md "Errors", reporting step 3). */
export function noteSuccess(db: Db, plate: string, tool: string, args: unknown, knownArgs: ReadonlySet<string>): void {
  let m = lastSuccess.get(db);
  if (!m) {
    m = new Map();
    lastSuccess.set(db, m);
  }
  if (m.size > 50_000) m.clear();
  m.set(callKey(plate, tool, argNamesKey(args ?? {}, knownArgs)), Date.now());
}

/** shapeKeysOf(argShape(args, known)) without building the shape: this runs on every successful call. */
function argNamesKey(args: unknown, known: ReadonlySet<string>): string {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return shapeKeysOf(argShape(args, known));
  const names: string[] = [];
  let unknown = false;
  for (const k in args as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(args, k)) continue;
    if (known.has(k)) names.push(k);
    else unknown = true;
  }
  if (unknown) names.push('<unknown keys>');
  return names.sort().join(',');
}

/** When the same call (plate, tool, argument names) last succeeded, if it did since this process started. */
export function lastSucceededAt(db: Db, key: string): number | undefined {
  return lastSuccess.get(db)?.get(key);
}

/**
 * Unauthenticated failures (no plate, no owner) cost an attacker nothing, so they are not each
 * stored: per source (surface, route or tool, code, reason) and minute, the first
 * UNAUTH_ROWS_PER_WINDOW are kept in full and the rest only counted; the count is written as
 * one summary row (reason "aggregated", arg_shape {suppressed, window_start, window_end}) when
 * the window is over. Their responses still carry an error_id; a suppressed one is not stored.
 */
export const UNAUTH_WINDOW_MS = 60_000;
export const UNAUTH_ROWS_PER_WINDOW = 20;
/** Evidence is kept this long (docs/security.md), except rows an error report refers to. */
export const EVIDENCE_RETENTION_MS = 30 * 24 * 3600 * 1000;

interface UnauthWindow {
  surface: EvidenceInput['surface'];
  tool?: string;
  code: string;
  httpStatus: number;
  start: number;
  stored: number;
  suppressed: number;
}

const unauthWindows = new WeakMap<Db, Map<string, UnauthWindow>>();

function writeSummary(db: Db, w: UnauthWindow): void {
  if (w.suppressed === 0) return;
  const shape = { suppressed: w.suppressed, window_start: new Date(w.start).toISOString(), window_end: new Date(w.start + UNAUTH_WINDOW_MS).toISOString() };
  stmt(
    db,
    `INSERT OR IGNORE INTO evidence (error_id, surface, tool, code, reason, http_status, arg_shape, room_id, task_id, plate, owner_id, request_id, surface_version, fingerprint, created_at)
     VALUES (?, ?, ?, ?, 'aggregated', ?, ?, NULL, NULL, NULL, NULL, NULL, ?, ?, ?)`,
  ).run(newErrorId(), w.surface, w.tool ?? null, w.code, w.httpStatus, JSON.stringify(shape), SURFACE_VERSION, fingerprintOf([w.surface, w.tool, w.code, 'aggregated']), Date.now());
}

/** True when this unauthenticated failure is to be counted rather than stored. */
function suppressUnauthenticated(db: Db, e: EvidenceInput, now: number): boolean {
  let m = unauthWindows.get(db);
  if (!m) unauthWindows.set(db, (m = new Map()));
  const key = [e.surface, e.tool ?? '', e.error.code, e.error.reason ?? ''].join('\u0000');
  let w = m.get(key);
  if (w && now - w.start >= UNAUTH_WINDOW_MS) {
    writeSummary(db, w);
    m.delete(key);
    w = undefined;
  }
  if (!w) {
    // Sources are routes and codes, a short list; the bound only guards against surprises.
    if (m.size >= 5000) flushUnauthenticatedEvidence(db, Infinity);
    w = { surface: e.surface, tool: e.tool, code: e.error.code, httpStatus: e.error.httpStatus, start: now, stored: 0, suppressed: 0 };
    m.set(key, w);
  }
  if (w.stored < UNAUTH_ROWS_PER_WINDOW) {
    w.stored++;
    return false;
  }
  w.suppressed++;
  return true;
}

/** Writes the summary rows of windows that ended by `now` (Infinity: all of them, e.g. at shutdown). */
export function flushUnauthenticatedEvidence(db: Db, now = Date.now()): number {
  const m = unauthWindows.get(db);
  if (!m) return 0;
  let n = 0;
  for (const [key, w] of m) {
    if (now - w.start < UNAUTH_WINDOW_MS) continue;
    try {
      writeSummary(db, w);
    } catch {
      // disk full or closed: the count is lost, the failures were answered
    }
    if (w.suppressed) n++;
    m.delete(key);
  }
  return n;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The 10-character time part of a ULID minted at `ms`. */
function ulidTime(ms: number): string {
  let out = '';
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/**
 * Deletes evidence older than the retention, in batches; rows an error report refers to stay
 * (`reported`: core.ports.reportedErrorIds, the feedback capability's answer).
 */
export function pruneEvidence(
  db: Db,
  retentionMs = EVIDENCE_RETENTION_MS,
  now = Date.now(),
  reported: (db: Db, before: string) => string[] = () => [],
): number {
  // error_id is err_ + a ULID, whose first 10 characters are its time: the primary key orders by age.
  const before = `err_${ulidTime(now - retentionMs)}`;
  const keep = JSON.stringify(reported(db, before));
  let total = 0;
  for (;;) {
    const n = stmt(
      db,
      `DELETE FROM evidence WHERE error_id IN (
         SELECT e.error_id FROM evidence e WHERE e.error_id < ?
           AND e.error_id NOT IN (SELECT value FROM json_each(?)) LIMIT 2000)`,
    ).run(before, keep).changes;
    total += n;
    if (n < 2000) return total;
  }
}

/** Stores what a failure was under its error_id. Never throws: evidence must not mask the failure. */
export function recordEvidence(db: Db, e: EvidenceInput): void {
  try {
    if (!e.plate && !e.ownerId && suppressUnauthenticated(db, e, Date.now())) return;
    const shape = e.args === undefined ? {} : argShape(e.args, e.knownArgs ?? new Set());
    const shapeKeys = shapeKeysOf(shape);
    const ids = authorisedIds(db, e);
    const fingerprint = fingerprintOf([e.surface, e.tool, e.error.code, e.error.reason, shapeKeys]);
    stmt(
      db,
      `INSERT OR IGNORE INTO evidence (error_id, surface, tool, code, reason, http_status, arg_shape, room_id, task_id, plate, owner_id, request_id, surface_version, fingerprint, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.errorId,
      e.surface,
      e.tool ?? null,
      e.error.code,
      e.error.reason ?? null,
      e.error.httpStatus,
      JSON.stringify(shape),
      ids.roomId ?? null,
      ids.taskId ?? null,
      e.plate ?? null,
      e.ownerId ?? null,
      e.requestId ?? null,
      SURFACE_VERSION,
      fingerprint,
      Date.now(),
    );
  } catch {
    // The store may be unavailable (disk full); the caller still gets its structured error.
  }
}

export interface EvidenceRow {
  error_id: string;
  surface: string;
  tool: string | null;
  code: string;
  reason: string | null;
  http_status: number;
  arg_shape: string;
  room_id: string | null;
  task_id: string | null;
  plate: string | null;
  owner_id: string | null;
  request_id: string | null;
  surface_version: string;
  fingerprint: string;
  created_at: number;
}

/** How often a failure of this fingerprint was stored. */
export function occurrencesOf(db: Db, fingerprint: string): number {
  return (stmt(db, 'SELECT COUNT(*) AS n FROM evidence WHERE fingerprint = ?').get(fingerprint) as { n: number }).n;
}

export function getEvidence(db: Db, errorId: string): EvidenceRow | undefined {
  return stmt(db, 'SELECT * FROM evidence WHERE error_id = ?').get(errorId) as EvidenceRow | undefined;
}
