import type { ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import type { AppError } from '../errors/app-error.js';
import { newErrorId, recordEvidence } from '../evidence/store.js';
import type { ApiErrorBody } from '../../../shared/errors.js';

/** A JSON answer of the human API before it is written: what dispatchApi (api.ts) returns. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The answer `sendJson` writes (no extra headers). */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): ApiAnswer {
  return { status, headers, body };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendAnswer(res: ServerResponse, a: ApiAnswer): void {
  sendJson(res, a.status, a.body, a.headers);
}

/** The human API's error: an HTTP status and `{error: {code, message, error_id}}`, evidence stored. */
export function apiErrorAnswer(
  core: Core,
  err: AppError,
  e: { route?: string; args?: unknown; knownArgs?: ReadonlySet<string>; ownerId?: string } = {},
): ApiAnswer {
  const errorId = newErrorId();
  recordEvidence(core.db, { errorId, surface: 'v1', tool: e.route, error: err, args: e.args, knownArgs: e.knownArgs, ownerId: e.ownerId, access: core.ports.evidenceAccess });
  const body: ApiErrorBody = { error: { code: err.code, message: err.message, error_id: errorId } };
  if (err.reason) body.error.reason = err.reason;
  if (err.retryAfterMs !== undefined) body.error.retry_after_ms = err.retryAfterMs;
  // Facts to act on, as tools carry them (e.g. the paths a refused merge names).
  if (err.details) body.error.details = err.details;
  const headers: Record<string, string> = {};
  if (err.retryAfterMs !== undefined) headers['retry-after'] = String(Math.ceil(err.retryAfterMs / 1000));
  if (err.httpStatus === 401) headers['www-authenticate'] = 'Bearer realm="agent-rooms"';
  // The body was refused unread (unauthenticated, too large, too slow): close rather than drain the rest of it.
  if (err.httpStatus === 401 || err.httpStatus === 413 || err.httpStatus === 408) headers.connection = 'close';
  return { status: err.httpStatus, headers, body };
}

/** Writes the human API's error (apiErrorAnswer). */
export function sendApiError(
  core: Core,
  res: ServerResponse,
  err: AppError,
  e: { route?: string; args?: unknown; knownArgs?: ReadonlySet<string>; ownerId?: string } = {},
): void {
  sendAnswer(res, apiErrorAnswer(core, err, e));
}
