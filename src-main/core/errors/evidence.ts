import { createHash } from 'node:crypto';
import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import type { AppError } from './app-error.js';
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
}

export function fingerprintOf(parts: Array<string | undefined>): string {
  return createHash('sha256').update(parts.map((p) => p ?? '').join('\u0000')).digest('hex').slice(0, 24);
}

/** Stores what a failure was under its error_id. Never throws: evidence must not mask the failure. */
export function recordEvidence(db: Db, e: EvidenceInput): void {
  try {
    const shape = e.args === undefined ? {} : argShape(e.args, e.knownArgs ?? new Set());
    const shapeKeys =
      shape && typeof shape === 'object' ? Object.keys(shape as object).sort().join(',') : String(shape);
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
      e.error.roomId ?? null,
      e.error.taskId ?? null,
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

export function getEvidence(db: Db, errorId: string): EvidenceRow | undefined {
  return stmt(db, 'SELECT * FROM evidence WHERE error_id = ?').get(errorId) as EvidenceRow | undefined;
}
