import type { Db } from '../db/open.js';
import { AppError } from '../errors/app-error.js';
import { callKey, getEvidence, lastSucceededAt, occurrencesOf, shapeKeysOfStored, type EvidenceRow } from '../evidence/store.js';
import { classify, explain, reportWorthy, retryAdvice, DIAGNOSE_FAILED, type Classification } from './classify.js';
import { getConsent } from './consent.js';
import { inErrorReports } from './incidents.js';

/** diagnose_error's own failures: they carry reason diagnose_failed and say not to report them. */
export function diagnoseFailed(code: 'NOT_FOUND' | 'INVALID_ARGUMENT', message: string): AppError {
  return new AppError(code, `${message}. Stop the diagnostic flow; do not report this failure`, { reason: DIAGNOSE_FAILED });
}

/** The evidence of one of the caller's own error ids; another plate's ids are not found. */
export function ownEvidence(db: Db, plate: string, errorId: string): EvidenceRow | undefined {
  const e = getEvidence(db, errorId);
  return e && e.plate === plate ? e : undefined;
}

export function isDiagnoseFailure(e: Pick<EvidenceRow, 'tool' | 'reason'>): boolean {
  return e.tool === 'diagnose_error' || e.reason === DIAGNOSE_FAILED;
}

function resolvedByRetry(db: Db, e: EvidenceRow): boolean {
  const at = lastSucceededAt(db, callKey(e.plate ?? undefined, e.tool ?? undefined, shapeKeysOfStored(e.arg_shape)));
  return at !== undefined && at >= e.created_at;
}

export interface Verdict {
  classification: Classification;
  recommended: boolean;
  why: string;
  resolvedByRetry: boolean;
}

/** Whether a report of this failure would help: a server fault or contract mismatch, not fixed by a retry, not diagnose_error's own. */
export function verdictOf(db: Db, e: EvidenceRow): Verdict {
  return verdictFrom(e, resolvedByRetry(db, e));
}

/** verdictOf's rule on the facts alone; `resolved`: the same call succeeded after this failure. */
export function verdictFrom(e: Pick<EvidenceRow, 'code' | 'reason' | 'tool'>, resolved: boolean): Verdict {
  const classification = classify(e);
  let recommended = false;
  let why: string;
  if (isDiagnoseFailure(e)) why = 'a failure of diagnose_error itself is never reported';
  else if (!reportWorthy(classification)) why = `a ${classification.replace('_', ' ')} failure is fixed by the caller; a report would not help`;
  else if (resolved) why = 'the same call succeeded after this failure; stop and do not report';
  else {
    recommended = true;
    why = `a ${classification.replace('_', ' ')} is worth reporting so it gets fixed`;
  }
  return { classification, recommended, why, resolvedByRetry: resolved };
}

export function diagnoseEvidence(db: Db, docUrl: (code: string) => string, e: EvidenceRow) {
  const v = verdictOf(db, e);
  const facts = { code: e.code, reason: e.reason, tool: e.tool };
  const { summary, steps } = explain(v.classification, facts);
  const consent = getConsent(db, e.plate!);
  const reported = inErrorReports(db, e.error_id);
  const next = nextAction(e, v, reported, consent.bugs);
  const occurrences = occurrencesOf(db, e.fingerprint);
  return {
    error_id: e.error_id,
    evidence_available: true,
    tool: e.tool,
    code: e.code,
    reason: e.reason,
    http_status: e.http_status,
    classification: v.classification,
    summary,
    steps,
    retry: retryAdvice(v.classification, facts),
    resolved_by_retry: v.resolvedByRetry,
    fingerprint: e.fingerprint,
    occurrences,
    occurred_at: new Date(e.created_at).toISOString(),
    doc_url: docUrl(e.code),
    feedback: {
      recommended: v.recommended,
      why: v.why,
      bug_consent: consent.bugs,
      already_reported: reported,
      next_action: next,
    },
  };
}

/** What the caller should do after diagnose_error, from the verdict, whether it was reported and the bug consent. */
export function nextAction(e: Pick<EvidenceRow, 'code' | 'reason' | 'tool'>, v: Verdict, reported: boolean, bugConsent: boolean): string {
  if (isDiagnoseFailure(e)) return 'stop';
  if (reported) return 'stop: already reported';
  if (v.recommended) return bugConsent ? 'report_error' : 'ask your human for bug consent, then set_feedback_consent';
  if (v.resolvedByRetry) return 'stop';
  return retryAdvice(v.classification, { code: e.code, reason: e.reason, tool: e.tool }).retryable ? 'retry once after retry.delay_ms' : 'correct the call';
}

/** Fallback when only tool and code are known: generic advice, no evidence, so nothing to report. */
export function diagnoseByCode(docUrl: (code: string) => string, tool: string | undefined, code: string) {
  const facts = { code, tool };
  const classification = classify(facts);
  const { summary, steps } = explain(classification, facts);
  return {
    error_id: null,
    evidence_available: false,
    tool: tool ?? null,
    code,
    classification,
    summary,
    steps,
    retry: retryAdvice(classification, facts),
    doc_url: docUrl(code),
    feedback: {
      recommended: false,
      why: 'without an error_id there is no stored evidence to report; keep the error_id of failed calls',
      bug_consent: null,
      already_reported: false,
      next_action: 'correct the call, or retry once when retry.retryable',
    },
  };
}
