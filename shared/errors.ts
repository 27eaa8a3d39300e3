/** Public error codes of tools and of the human API (docs/contract.md "Errors"). */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'UNAUTHENTICATED',
  'SCOPE_MISSING',
  'FORBIDDEN',
  'NOT_MEMBER',
  'NOT_FOUND',
  'CONFLICT',
  'CONSENT_REQUIRED',
  'RUNNERS_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
  'UNAVAILABLE',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The structured error of a failed tool call (`structuredContent.error`). */
export interface ToolErrorBody {
  code: ErrorCode;
  reason?: string;
  message: string;
  http_status: number;
  error_id: string;
  retryable: boolean;
  retry_after_ms?: number;
  /** Facts to act on, per error (e.g. `conflicts` of CONFLICT paths_reserved). */
  details?: Record<string, unknown>;
  doc_url: string;
  next_action: 'diagnose_error';
}

/** The error body of the human API: `{error: {code, message, error_id}}`. */
export interface ApiErrorBody {
  error: { code: ErrorCode; message: string; error_id: string; reason?: string; retry_after_ms?: number; details?: Record<string, unknown> };
}

export const DEFAULT_HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  SCOPE_MISSING: 403,
  FORBIDDEN: 403,
  NOT_MEMBER: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CONSENT_REQUIRED: 403,
  RUNNERS_NOT_ALLOWED: 403,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};
