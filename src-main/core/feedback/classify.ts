/**
 * diagnose_error's rules as plain functions of the stored evidence: which class a failure
 * belongs to, what the caller should do, whether and when to retry, and whether a report
 * would help anyone (only server faults and contract mismatches).
 */

import { SPEC_TOOLS } from '../mcp/spec-tools.js';

export const CLASSIFICATIONS = [
  'caller_misuse',
  'authentication',
  'permission',
  'state',
  'transient',
  'server_fault',
  'contract_mismatch',
] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

/** The reason diagnose_error's own failures carry: they end the diagnostic flow and are never reported. */
export const DIAGNOSE_FAILED = 'diagnose_failed';

export interface FailureFacts {
  code: string;
  reason?: string | null;
  tool?: string | null;
}

export function classify(f: FailureFacts): Classification {
  if (f.reason === 'contract_mismatch') return 'contract_mismatch';
  switch (f.code) {
    case 'UNAUTHENTICATED':
      return 'authentication';
    case 'SCOPE_MISSING':
    case 'FORBIDDEN':
    case 'NOT_MEMBER':
    case 'CONSENT_REQUIRED':
      return 'permission';
    case 'CONFLICT':
      return 'state';
    case 'RATE_LIMITED':
    case 'UNAVAILABLE':
      return 'transient';
    case 'INTERNAL':
      return 'server_fault';
    case 'NOT_FOUND':
      // The specification promises this tool, yet the server does not know it.
      if (f.reason === 'unknown_tool' && f.tool && SPEC_TOOLS.has(f.tool)) return 'contract_mismatch';
      return 'caller_misuse';
    default:
      return 'caller_misuse';
  }
}

export interface RetryAdvice {
  retryable: boolean;
  /** Wait this long before the single retry. */
  delay_ms?: number;
  max_attempts: number;
}

/** Default waits; the failed call's own retry_after_ms, when it had one, takes precedence for the caller. */
export const RETRY_DELAY_MS: Partial<Record<Classification, number>> = {
  transient: 1000,
  server_fault: 2000,
};

export function retryAdvice(c: Classification, f: FailureFacts): RetryAdvice {
  if (f.reason === 'already_claimed') return { retryable: false, max_attempts: 0 };
  const delay = RETRY_DELAY_MS[c];
  return delay === undefined ? { retryable: false, max_attempts: 0 } : { retryable: true, delay_ms: delay, max_attempts: 1 };
}

const BY_REASON: Record<string, string[]> = {
  not_assigned: ['The task is locked to its assignee; you cannot claim it.', 'Work on tasks in your own lane (read_board with assignee = your plate), or ask a room admin to reassign.'],
  already_claimed: ['Another instance of your agent holds this task.', 'Stop: do not retry and do not claim it again.'],
  blocked_by_deps: ['A task this one depends on is not done yet.', 'Read blocked_by in read_board and wait for those tasks to reach done.'],
  diagnose_failed: ['diagnose_error itself failed.', 'Stop the diagnostic flow here; do not report this failure.'],
  unknown_tool: ['The tool name is not one this server offers.', 'Call tools/list and use a listed tool.'],
};

const BY_CLASS: Record<Classification, { summary: string; steps: string[] }> = {
  caller_misuse: {
    summary: 'The call did not fit the tool: a missing, malformed or unknown argument or id, or content over a limit.',
    steps: ['Read the error message: it names the argument.', 'Correct the call and send it again once. Do not resend it unchanged.'],
  },
  authentication: {
    summary: 'The passport or credential was missing, expired or revoked.',
    steps: ['Mint a fresh passport from your credential and reconnect.', 'If the credential was revoked, ask your owner for a new one.'],
  },
  permission: {
    summary: 'The caller is not allowed to do this: a scope, room membership, room role or Trust (consent) rule refused it.',
    steps: ['Do not retry unchanged.', 'Use a tool your scopes allow, a room you are a member of, or ask the human who can grant it.'],
  },
  state: {
    summary: 'The current state does not allow this step (a task status, a lease, an idempotency key reused with other arguments).',
    steps: ['Re-read the state (read_board, get_room_context) before acting again.', 'Take the step the state allows (e.g. complete_task instead of set_status done).'],
  },
  transient: {
    summary: 'A transient condition: the rate limit or a briefly unavailable store.',
    steps: ['Wait the stated delay (retry_after_ms of the error, or retry.delay_ms here).', 'Retry the same call once, with the same idempotency_key. If it succeeds, stop: do not report.'],
  },
  server_fault: {
    summary: 'The server failed while handling a valid call. The failure is recorded in the evidence store.',
    steps: [
      'Retry the same call once after retry.delay_ms. If it succeeds, stop: do not report.',
      'If it fails again, read get_feedback_consent. Without bug consent ask your human directly; record a clear yes with set_feedback_consent({bugs:true}), a no with {revoked:true}.',
      'With bug consent call report_error with this error_id. Do not report it through another feedback tool.',
    ],
  },
  contract_mismatch: {
    summary: 'The server behaved differently from its published interface specification.',
    steps: [
      'Follow what the tool actually does: its behaviour is authoritative.',
      'With bug consent call report_error with this error_id so the mismatch gets fixed.',
    ],
  },
};

export function reportWorthy(c: Classification): boolean {
  return c === 'server_fault' || c === 'contract_mismatch';
}

export function explain(c: Classification, f: FailureFacts): { summary: string; steps: string[] } {
  const base = BY_CLASS[c];
  const specific = f.reason ? BY_REASON[f.reason] : undefined;
  if (!specific) return { summary: base.summary, steps: [...base.steps] };
  return { summary: `${base.summary} ${specific[0]}`, steps: specific.slice(1).concat(c === 'caller_misuse' || c === 'permission' || c === 'state' ? [] : base.steps) };
}
