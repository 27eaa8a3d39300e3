import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { AppError } from '../errors/app-error.js';
import {
  callKey,
  fingerprintOf,
  getEvidence,
  lastSucceededAt,
  shapeKeysOfStored,
  type EvidenceRow,
} from '../errors/evidence.js';
import { classify, explain, reportWorthy, retryAdvice, DIAGNOSE_FAILED, type Classification } from './classify.js';
import { describeSensitive, findSensitive } from './sensitive.js';
import { countSentences } from './sentences.js';
import { getTaskRow } from '../tasks/store.js';

// ---------------------------------------------------------------- consent

export interface FeedbackConsent {
  plate: string;
  bugs: boolean;
  product: boolean;
  granted_at: string | null;
  revoked: boolean;
}

interface ConsentRow {
  plate: string;
  bugs: number;
  product: number;
  revoked: number;
  granted_at: number | null;
  updated_at: number;
}

/** A plate's consent; both flags default off, and a revoked consent reads as both off. */
export function getConsent(db: Db, plate: string): FeedbackConsent {
  const r = stmt(db, 'SELECT * FROM feedback_consent WHERE plate = ?').get(plate) as ConsentRow | undefined;
  if (!r) return { plate, bugs: false, product: false, granted_at: null, revoked: false };
  const revoked = r.revoked === 1;
  return {
    plate,
    bugs: !revoked && r.bugs === 1,
    product: !revoked && r.product === 1,
    granted_at: r.granted_at === null ? null : new Date(r.granted_at).toISOString(),
    revoked,
  };
}

export interface ConsentChange {
  bugs?: boolean;
  product?: boolean;
  revoked?: boolean;
}

/**
 * Records the human's explicit answer for one plate. `revoked: true` turns both flags off;
 * granting a flag after a revocation starts a fresh consent (the other flag stays off until granted).
 */
export function setConsent(db: Db, plate: string, change: ConsentChange, now = Date.now()): FeedbackConsent {
  const grants = change.bugs === true || change.product === true;
  if (change.revoked === true && grants) {
    throw new AppError('INVALID_ARGUMENT', 'revoked:true cannot be combined with granting bugs or product; send one answer per call');
  }
  if (change.bugs === undefined && change.product === undefined && change.revoked === undefined) {
    throw new AppError('INVALID_ARGUMENT', 'give bugs, product or revoked');
  }
  immediate(db, () => {
    const cur = stmt(db, 'SELECT * FROM feedback_consent WHERE plate = ?').get(plate) as ConsentRow | undefined;
    let bugs = cur && cur.revoked === 0 ? cur.bugs : 0;
    let product = cur && cur.revoked === 0 ? cur.product : 0;
    let revoked = cur?.revoked ?? 0;
    let grantedAt = cur && cur.revoked === 0 ? cur.granted_at : null;
    if (change.revoked === true) {
      bugs = 0;
      product = 0;
      revoked = 1;
      grantedAt = null;
    } else {
      if (change.revoked === false || grants) revoked = 0;
      if (change.bugs !== undefined) bugs = change.bugs ? 1 : 0;
      if (change.product !== undefined) product = change.product ? 1 : 0;
      if (grants) grantedAt = now;
      if (!bugs && !product) grantedAt = null;
    }
    stmt(
      db,
      `INSERT INTO feedback_consent (plate, bugs, product, revoked, granted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (plate) DO UPDATE SET bugs = excluded.bugs, product = excluded.product, revoked = excluded.revoked,
         granted_at = excluded.granted_at, updated_at = excluded.updated_at`,
    ).run(plate, bugs, product, revoked, grantedAt, now);
  });
  return getConsent(db, plate);
}

// ---------------------------------------------------------------- diagnosis

/** diagnose_error's own failures: they carry reason diagnose_failed and say not to report them. */
export function diagnoseFailed(code: 'NOT_FOUND' | 'INVALID_ARGUMENT', message: string): AppError {
  return new AppError(code, `${message}. Stop the diagnostic flow; do not report this failure`, { reason: DIAGNOSE_FAILED });
}

/** The evidence of one of the caller's own error ids; another plate's ids are not found. */
export function ownEvidence(db: Db, plate: string, errorId: string): EvidenceRow | undefined {
  const e = getEvidence(db, errorId);
  return e && e.plate === plate ? e : undefined;
}

function isDiagnoseFailure(e: EvidenceRow): boolean {
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
  const classification = classify(e);
  const resolved = resolvedByRetry(db, e);
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
  const report = getReportByErrorId(db, e.error_id);
  let next: string;
  if (isDiagnoseFailure(e)) next = 'stop';
  else if (report) next = 'stop: already reported';
  else if (v.recommended) next = consent.bugs ? 'report_error' : 'ask your human for bug consent, then set_feedback_consent';
  else if (v.resolvedByRetry) next = 'stop';
  else next = retryAdvice(v.classification, facts).retryable ? 'retry once after retry.delay_ms' : 'correct the call';
  const occurrences = (stmt(db, 'SELECT COUNT(*) AS n FROM evidence WHERE fingerprint = ?').get(e.fingerprint) as { n: number }).n;
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
      already_reported: report !== undefined,
      next_action: next,
    },
  };
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

// ---------------------------------------------------------------- error reports

interface ReportRow {
  id: string;
  error_id: string;
  plate: string;
  owner_id: string;
  room_id: string | null;
  task_id: string | null;
  tool: string | null;
  code: string;
  classification: string;
  fingerprint: string;
  impact: string | null;
  note: string | null;
  trace: string;
  created_at: number;
}

export function getReportByErrorId(db: Db, errorId: string): ReportRow | undefined {
  return stmt(db, 'SELECT * FROM error_reports WHERE error_id = ?').get(errorId) as ReportRow | undefined;
}

function recurrenceOf(db: Db, fingerprint: string, createdAt: number) {
  const r = stmt(
    db,
    'SELECT COUNT(*) AS n, MIN(created_at) AS first FROM error_reports WHERE fingerprint = ? AND created_at <= ?',
  ).get(fingerprint, createdAt) as { n: number; first: number | null };
  return { reports: r.n, recurring: r.n > 1, first_reported_at: r.first === null ? null : new Date(r.first).toISOString() };
}

export function reportDto(db: Db, r: ReportRow) {
  return {
    report_id: r.id,
    error_id: r.error_id,
    recorded: true,
    plate: r.plate,
    room: r.room_id,
    task_id: r.task_id,
    tool: r.tool,
    code: r.code,
    classification: r.classification,
    impact: r.impact,
    note: r.note,
    fingerprint: r.fingerprint,
    recurrence: recurrenceOf(db, r.fingerprint, r.created_at),
    trace: JSON.parse(r.trace) as Record<string, unknown>,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** Refuses text that looks sensitive, naming only the kind of content (never echoing it). */
export function requireTechnical(field: string, text: string): void {
  const kind = findSensitive(text);
  if (kind) {
    throw new AppError(
      'INVALID_ARGUMENT',
      `${field} looks like it contains ${describeSensitive(kind)}; describe the technical impact only, without secrets, personal data or quotes`,
      { reason: 'sensitive_content' },
    );
  }
}

/** A task the caller may name in feedback: its own task, or one in a room it is a member of. */
function taskOfCaller(db: Db, plate: string, taskId: string) {
  const t = getTaskRow(db, taskId);
  const member =
    t && stmt(db, 'SELECT 1 FROM room_agents WHERE room_id = ? AND plate = ?').get(t.room_id, plate) !== undefined;
  if (!t || !member) throw new AppError('NOT_FOUND', 'task not found in your rooms; check task_id with read_board');
  return t;
}

export interface ReportInput {
  plate: string;
  ownerId: string;
  errorId: string;
  taskId?: string;
  impact?: string;
  note?: string;
}

/** report_error: idempotent per error_id; the trace comes from the stored evidence, never from the agent. */
export function reportError(db: Db, input: ReportInput) {
  const e = ownEvidence(db, input.plate, input.errorId);
  if (!e) throw new AppError('NOT_FOUND', 'no error with this error_id among your failures; use the error_id of your own failed call');
  const existing = getReportByErrorId(db, e.error_id);
  if (existing) return { ...reportDto(db, existing), duplicate: true };
  if (isDiagnoseFailure(e)) {
    throw new AppError('FORBIDDEN', 'a failure of diagnose_error is never reported; stop the diagnostic flow', { reason: 'not_reportable' });
  }
  const v = verdictOf(db, e);
  if (!v.recommended) {
    throw new AppError('FORBIDDEN', `diagnose_error does not recommend feedback for this failure: ${v.why}`, {
      reason: v.resolvedByRetry ? 'resolved_by_retry' : 'feedback_not_recommended',
    });
  }
  if (!getConsent(db, input.plate).bugs) {
    throw new AppError(
      'CONSENT_REQUIRED',
      'bug reports need your human’s consent: ask them directly, then record a clear yes with set_feedback_consent({bugs:true})',
      { reason: 'bug_consent_missing' },
    );
  }
  if (input.note !== undefined) requireTechnical('note', input.note);
  if (alreadyInTaskFeedback(db, e.error_id)) {
    throw new AppError('CONFLICT', 'this incident was already submitted as task feedback; do not submit it twice', { reason: 'already_reported' });
  }
  const task = input.taskId ? taskOfCaller(db, input.plate, input.taskId) : undefined;
  const classification = v.classification;
  const trace = {
    error_id: e.error_id,
    tool: e.tool,
    code: e.code,
    reason: e.reason,
    http_status: e.http_status,
    classification,
    arg_shape: JSON.parse(e.arg_shape) as unknown,
    room: e.room_id,
    task_id: e.task_id,
    request_id: e.request_id,
    surface: e.surface,
    surface_version: e.surface_version,
    fingerprint: e.fingerprint,
    occurred_at: new Date(e.created_at).toISOString(),
  };
  const id = newId('rep');
  const now = Date.now();
  immediate(db, () => {
    stmt(
      db,
      `INSERT OR IGNORE INTO error_reports (id, error_id, plate, owner_id, room_id, task_id, tool, code, classification, fingerprint, impact, note, trace, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      e.error_id,
      input.plate,
      input.ownerId,
      task?.room_id ?? e.room_id,
      task?.id ?? e.task_id,
      e.tool,
      e.code,
      classification,
      e.fingerprint,
      input.impact ?? null,
      input.note ?? null,
      JSON.stringify(trace),
      now,
    );
  });
  const row = getReportByErrorId(db, e.error_id)!;
  return { ...reportDto(db, row), duplicate: row.id !== id };
}

/** Error reports a human may read: those of their own agents and those tied to rooms they belong to. */
export function reportsForOwner(db: Db, ownerId: string, limit = 200) {
  const rows = stmt(
    db,
    `SELECT * FROM error_reports WHERE owner_id = ?
       OR room_id IN (SELECT room_id FROM room_humans WHERE owner_id = ?)
     ORDER BY created_at DESC LIMIT ?`,
  ).all(ownerId, ownerId, limit) as ReportRow[];
  return rows.map((r) => reportDto(db, r));
}

// ---------------------------------------------------------------- task feedback

export const TASK_FEEDBACK_STATUSES = ['done', 'failed', 'blocked'] as const;

export interface IssueEvidence {
  tool: string;
  expected: string;
  got: string;
}

export interface TaskFeedbackInput {
  plate: string;
  ownerId: string;
  roomId: string;
  taskId?: string;
  outcome: 'clean' | 'issue';
  contractMismatch?: boolean;
  errorId?: string;
  evidence?: IssueEvidence;
  issue?: string;
  recommendedFix?: string;
  severity?: 'blocker' | 'degraded' | 'minor';
  origin?: 'agent_noticed' | 'human_struggle';
}

interface TaskFeedbackRow {
  id: string;
  room_id: string;
  task_id: string | null;
  plate: string;
  owner_id: string;
  step_key: string;
  kind: 'task' | 'contract_mismatch';
  outcome: 'clean' | 'issue';
  task_status: string | null;
  error_id: string | null;
  evidence: string | null;
  issue: string | null;
  recommended_fix: string | null;
  severity: string | null;
  origin: string | null;
  fingerprint: string | null;
  recurrence: number;
  created_at: number;
}

function alreadyInTaskFeedback(db: Db, errorId: string): boolean {
  return stmt(db, 'SELECT 1 FROM task_feedback WHERE error_id = ?').get(errorId) !== undefined;
}

export function taskFeedbackDto(r: TaskFeedbackRow) {
  return {
    feedback_id: r.id,
    recorded: true,
    room: r.room_id,
    task_id: r.task_id,
    plate: r.plate,
    kind: r.kind,
    outcome: r.outcome,
    task_status: r.task_status,
    error_id: r.error_id,
    evidence: r.evidence ? (JSON.parse(r.evidence) as IssueEvidence) : null,
    issue: r.issue,
    recommended_fix: r.recommended_fix,
    severity: r.severity,
    origin: r.origin,
    fingerprint: r.fingerprint,
    recurrence: { count: r.recurrence, recurring: r.recurrence > 1 },
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** Words, not digits, ids or spacing: the same problem seen twice reads the same. */
function normalise(s: string): string {
  return s
    .toLowerCase()
    .replace(/\b[a-z]+_[0-9a-z]{26}\b/g, '<id>')
    .replace(/\d+/g, '#')
    .replace(/[^\p{L}#<>_ ]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function requireSentences(field: string, text: string, min: number, max: number): void {
  const n = countSentences(text);
  if (n < min || n > max) {
    const want = min === max ? `${min}` : `${min} to ${max}`;
    throw new AppError('INVALID_ARGUMENT', `${field} must be ${want} sentences; it has ${n}`, { reason: 'sentence_count' });
  }
}

/**
 * submit_task_feedback: right after complete_task(done) or set_status(failed|blocked) of the
 * caller's own task, once per status step (a repeat returns the first). An issue needs cited
 * evidence, the sentence counts, severity, origin and bug consent; the legacy contract-mismatch
 * report needs no task step but the same evidence and consent.
 */
export function submitTaskFeedback(db: Db, input: TaskFeedbackInput) {
  const legacy = input.contractMismatch === true;
  if (legacy && input.outcome !== 'issue') throw new AppError('INVALID_ARGUMENT', 'a contract_mismatch report has outcome "issue"');
  let taskStatus: string | null = null;
  let stepKey: string;
  let taskId: string | null = null;
  if (!legacy) {
    if (!input.taskId) throw new AppError('INVALID_ARGUMENT', 'task_id is required');
    const t = getTaskRow(db, input.taskId);
    if (!t || t.room_id !== input.roomId) throw new AppError('NOT_FOUND', 'task not found in this room; check task_id with read_board');
    if (t.assignee !== input.plate) {
      throw new AppError('FORBIDDEN', 'only the task’s assignee gives feedback on it', { reason: 'not_assigned', roomId: t.room_id, taskId: t.id });
    }
    if (!(TASK_FEEDBACK_STATUSES as readonly string[]).includes(t.status)) {
      throw new AppError(
        'CONFLICT',
        'task feedback comes right after complete_task(done) or set_status(failed|blocked); this task is not in one of those states',
        { reason: 'not_after_completion', roomId: t.room_id, taskId: t.id },
      );
    }
    taskStatus = t.status;
    taskId = t.id;
    // One feedback per status step: a later step (e.g. blocked, then done) may carry its own.
    stepKey = `task:${t.id}:${t.status}:${t.updated_at}`;
    const prior = stmt(db, 'SELECT * FROM task_feedback WHERE plate = ? AND step_key = ?').get(input.plate, stepKey) as
      | TaskFeedbackRow
      | undefined;
    if (prior) return { ...taskFeedbackDto(prior), duplicate: true };
  } else {
    if (input.taskId) taskId = taskOfCaller(db, input.plate, input.taskId).id;
    stepKey = `mismatch:${newId('tfb')}`;
  }

  let fingerprint: string | null = null;
  if (input.outcome === 'issue') {
    // The cheap gate first: without consent, no text of the report is even looked at.
    if (!getConsent(db, input.plate).bugs) {
      throw new AppError(
        'CONSENT_REQUIRED',
        'an issue report needs your human’s bug consent: ask them directly, then record a clear yes with set_feedback_consent({bugs:true})',
        { reason: 'bug_consent_missing' },
      );
    }
    if (!input.evidence) {
      throw new AppError('INVALID_ARGUMENT', 'an issue needs evidence {tool, expected, got}: no citation, no report', { reason: 'evidence_missing' });
    }
    if (!legacy) {
      if (input.issue === undefined) throw new AppError('INVALID_ARGUMENT', 'an issue needs issue (3 to 4 sentences)');
      if (input.recommendedFix === undefined) throw new AppError('INVALID_ARGUMENT', 'an issue needs recommended_fix (3 sentences)');
      if (!input.severity) throw new AppError('INVALID_ARGUMENT', 'an issue needs severity: blocker, degraded or minor');
      if (!input.origin) throw new AppError('INVALID_ARGUMENT', 'an issue needs origin: agent_noticed or human_struggle');
    }
    if (input.issue !== undefined) requireSentences('issue', input.issue, 3, 4);
    if (input.recommendedFix !== undefined) requireSentences('recommended_fix', input.recommendedFix, 3, 3);
    requireTechnical('evidence.tool', input.evidence.tool);
    requireTechnical('evidence.expected', input.evidence.expected);
    requireTechnical('evidence.got', input.evidence.got);
    if (input.issue !== undefined) requireTechnical('issue', input.issue);
    if (input.recommendedFix !== undefined) requireTechnical('recommended_fix', input.recommendedFix);
    if (input.errorId) {
      if (!ownEvidence(db, input.plate, input.errorId)) throw new AppError('NOT_FOUND', 'no error with this error_id among your failures');
      if (getReportByErrorId(db, input.errorId) || alreadyInTaskFeedback(db, input.errorId)) {
        throw new AppError('CONFLICT', 'this incident was already reported; do not submit it twice', { reason: 'already_reported' });
      }
    }
    fingerprint = fingerprintOf([
      legacy ? 'contract_mismatch' : 'task_issue',
      normalise(input.evidence.tool),
      normalise(input.evidence.expected),
      normalise(input.evidence.got),
    ]);
  }

  const id = newId('tfb');
  const now = Date.now();
  immediate(db, () => {
    const seen = fingerprint
      ? (stmt(db, 'SELECT COUNT(*) AS n FROM task_feedback WHERE fingerprint = ?').get(fingerprint) as { n: number }).n
      : 0;
    stmt(
      db,
      `INSERT OR IGNORE INTO task_feedback (id, room_id, task_id, plate, owner_id, step_key, kind, outcome, task_status, error_id, evidence,
         issue, recommended_fix, severity, origin, fingerprint, recurrence, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      input.roomId,
      taskId,
      input.plate,
      input.ownerId,
      stepKey,
      legacy ? 'contract_mismatch' : 'task',
      input.outcome,
      taskStatus,
      input.outcome === 'issue' ? (input.errorId ?? null) : null,
      input.outcome === 'issue' ? JSON.stringify(input.evidence) : null,
      input.outcome === 'issue' ? (input.issue ?? null) : null,
      input.outcome === 'issue' ? (input.recommendedFix ?? null) : null,
      input.outcome === 'issue' ? (input.severity ?? (legacy ? 'degraded' : null)) : null,
      input.outcome === 'issue' ? (input.origin ?? (legacy ? 'agent_noticed' : null)) : null,
      fingerprint,
      seen + 1,
      now,
    );
  });
  const row = stmt(db, 'SELECT * FROM task_feedback WHERE plate = ? AND step_key = ?').get(input.plate, stepKey) as TaskFeedbackRow;
  return { ...taskFeedbackDto(row), duplicate: row.id !== id };
}

export function taskFeedbackOfRoom(db: Db, roomId: string, limit = 500) {
  return (
    stmt(db, 'SELECT * FROM task_feedback WHERE room_id = ? ORDER BY created_at DESC LIMIT ?').all(roomId, limit) as TaskFeedbackRow[]
  ).map(taskFeedbackDto);
}

// ---------------------------------------------------------------- product feedback

/** decisions.md "Limits": at least 3 completed tasks by the plate, once per MCP session. */
export const PRODUCT_FEEDBACK_MIN_DONE = 3;

export type ProductAnswers = Record<string, string> | 'no notes';

export type ProductDecline = { recorded: false; reason: 'product_consent_missing' | 'too_few_completed_tasks' | 'already_sent_this_session'; message: string };

export function completedTasks(db: Db, plate: string): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM tasks WHERE assignee = ? AND status = 'done'").get(plate) as { n: number }).n;
}

/** The rate gate, checked before anything is stored; a decline is an answer, not an error. */
export function productGate(db: Db, plate: string, sentThisSession: boolean): ProductDecline | undefined {
  if (sentThisSession) {
    return { recorded: false, reason: 'already_sent_this_session', message: 'product feedback is accepted once per session; do not retry' };
  }
  const done = completedTasks(db, plate);
  if (done < PRODUCT_FEEDBACK_MIN_DONE) {
    return {
      recorded: false,
      reason: 'too_few_completed_tasks',
      message: `product feedback opens after ${PRODUCT_FEEDBACK_MIN_DONE} completed tasks (you have ${done}); do not retry now`,
    };
  }
  return undefined;
}

export function recordProductFeedback(
  db: Db,
  input: { plate: string; ownerId: string; roomId: string; sessionId: string; answers: ProductAnswers },
) {
  const noNotes = input.answers === 'no notes' || Object.keys(input.answers).length === 0;
  if (input.answers !== 'no notes') {
    for (const [q, a] of Object.entries(input.answers)) {
      requireTechnical('a question of answers', q);
      requireTechnical('an answer', a);
    }
  }
  const id = newId('pfb');
  const now = Date.now();
  stmt(
    db,
    'INSERT INTO product_feedback (id, room_id, plate, owner_id, session_id, answers, no_notes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(id, input.roomId, input.plate, input.ownerId, input.sessionId, JSON.stringify(noNotes ? {} : input.answers), noNotes ? 1 : 0, now);
  return { recorded: true as const, feedback_id: id, no_notes: noNotes, created_at: new Date(now).toISOString() };
}

export function productFeedbackOfRoom(db: Db, roomId: string, limit = 200) {
  return (
    stmt(db, 'SELECT * FROM product_feedback WHERE room_id = ? ORDER BY created_at DESC LIMIT ?').all(roomId, limit) as Array<{
      id: string;
      plate: string;
      answers: string;
      no_notes: number;
      created_at: number;
    }>
  ).map((r) => ({
    feedback_id: r.id,
    plate: r.plate,
    answers: r.no_notes ? 'no notes' : (JSON.parse(r.answers) as Record<string, string>),
    created_at: new Date(r.created_at).toISOString(),
  }));
}
