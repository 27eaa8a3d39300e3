import { DEFAULT_HTTP_STATUS, type ErrorCode } from '../../../shared/errors.js';

export interface AppErrorOptions {
  reason?: string;
  httpStatus?: number;
  retryable?: boolean;
  retryAfterMs?: number;
  /** Ids the caller was authorised for, kept in the evidence store. */
  roomId?: string;
  taskId?: string;
  /** Structured facts the caller needs to act (e.g. who holds the paths asked for); public, so never secrets. */
  details?: Record<string, unknown>;
}

/** The one error type of the core: every failure path produces it, and transports map it. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly reason?: string;
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly retryAfterMs?: number;
  readonly details?: Record<string, unknown>;
  roomId?: string;
  taskId?: string;

  constructor(code: ErrorCode, message: string, opts: AppErrorOptions = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.reason = opts.reason;
    this.httpStatus = opts.httpStatus ?? DEFAULT_HTTP_STATUS[code];
    this.retryable = opts.retryable ?? (code === 'RATE_LIMITED' || code === 'UNAVAILABLE');
    this.retryAfterMs = opts.retryAfterMs;
    this.details = opts.details;
    this.roomId = opts.roomId;
    this.taskId = opts.taskId;
  }
}

export const invalid = (message: string, reason?: string) => new AppError('INVALID_ARGUMENT', message, { reason });
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const forbidden = (message: string, reason?: string) => new AppError('FORBIDDEN', message, { reason });
export const conflict = (message: string, reason?: string) => new AppError('CONFLICT', message, { reason });

/** Any thrown value as an AppError; unknown faults become INTERNAL with no detail leaked. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string } | null)?.code;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'SQLITE_IOERR') {
    return new AppError('UNAVAILABLE', 'storage is temporarily unavailable; retry shortly', {
      retryable: true,
      retryAfterMs: 1000,
    });
  }
  return new AppError('INTERNAL', 'internal server error');
}
