import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { AppError } from '../errors/app-error.js';
import { fingerprintOf } from '../evidence/store.js';
import { getTaskRow } from '../tasks/store.js';
import { requireBugConsent } from './consent.js';
import { ownEvidence } from './diagnose.js';
import { inErrorReports, inTaskFeedback, requireTechnical, taskOfCaller } from './incidents.js';
import { countSentences } from './sentences.js';

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

/** Where a feedback is filed: its task (if any), status step and the key that makes a repeat return the first. */
interface Step {
  taskId: string | null;
  taskStatus: string | null;
  stepKey: string;
}

/**
 * The caller's own task right after complete_task(done) or set_status(failed|blocked): its
 * status step, or the feedback already given for that step.
 */
function taskStep(db: Db, input: TaskFeedbackInput): Step | { prior: TaskFeedbackRow } {
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
  // One feedback per status step: a later step (e.g. blocked, then done) may carry its own.
  const stepKey = `task:${t.id}:${t.status}:${t.updated_at}`;
  const prior = feedbackOfStep(db, input.plate, stepKey);
  return prior ? { prior } : { taskId: t.id, taskStatus: t.status, stepKey };
}

/** The legacy contract-mismatch report: no task step (a task of the caller's rooms may be named), never a repeat. */
function mismatchStep(db: Db, input: TaskFeedbackInput): Step {
  return { taskId: input.taskId ? taskOfCaller(db, input.plate, input.taskId).id : null, taskStatus: null, stepKey: `mismatch:${newId('tfb')}` };
}

/**
 * The checks of an issue, cheapest first (without consent no text is even looked at); returns
 * its fingerprint, so the same problem seen twice counts as a recurrence.
 */
function requireIssue(db: Db, input: TaskFeedbackInput, legacy: boolean): string {
  requireBugConsent(db, input.plate, 'an issue report needs your human’s bug consent');
  const evidence = input.evidence;
  if (!evidence) {
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
  requireTechnical('evidence.tool', evidence.tool);
  requireTechnical('evidence.expected', evidence.expected);
  requireTechnical('evidence.got', evidence.got);
  if (input.issue !== undefined) requireTechnical('issue', input.issue);
  if (input.recommendedFix !== undefined) requireTechnical('recommended_fix', input.recommendedFix);
  if (input.errorId) {
    if (!ownEvidence(db, input.plate, input.errorId)) throw new AppError('NOT_FOUND', 'no error with this error_id among your failures');
    if (inErrorReports(db, input.errorId) || inTaskFeedback(db, input.errorId)) {
      throw new AppError('CONFLICT', 'this incident was already reported; do not submit it twice', { reason: 'already_reported' });
    }
  }
  return fingerprintOf([
    legacy ? 'contract_mismatch' : 'task_issue',
    normalise(evidence.tool),
    normalise(evidence.expected),
    normalise(evidence.got),
  ]);
}

function feedbackOfStep(db: Db, plate: string, stepKey: string): TaskFeedbackRow | undefined {
  return stmt(db, 'SELECT * FROM task_feedback WHERE plate = ? AND step_key = ?').get(plate, stepKey) as TaskFeedbackRow | undefined;
}

/** Stores the feedback (a concurrent repeat of the same step is ignored) and counts earlier ones with its fingerprint. */
function insertTaskFeedback(db: Db, id: string, input: TaskFeedbackInput, step: Step, legacy: boolean, fingerprint: string | null): void {
  const issue = input.outcome === 'issue';
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
      step.taskId,
      input.plate,
      input.ownerId,
      step.stepKey,
      legacy ? 'contract_mismatch' : 'task',
      input.outcome,
      step.taskStatus,
      issue ? (input.errorId ?? null) : null,
      issue ? JSON.stringify(input.evidence) : null,
      issue ? (input.issue ?? null) : null,
      issue ? (input.recommendedFix ?? null) : null,
      issue ? (input.severity ?? (legacy ? 'degraded' : null)) : null,
      issue ? (input.origin ?? (legacy ? 'agent_noticed' : null)) : null,
      fingerprint,
      seen + 1,
      Date.now(),
    );
  });
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
  const step = legacy ? mismatchStep(db, input) : taskStep(db, input);
  if ('prior' in step) return { ...taskFeedbackDto(step.prior), duplicate: true };
  const fingerprint = input.outcome === 'issue' ? requireIssue(db, input, legacy) : null;
  const id = newId('tfb');
  insertTaskFeedback(db, id, input, step, legacy, fingerprint);
  const row = feedbackOfStep(db, input.plate, step.stepKey)!;
  return { ...taskFeedbackDto(row), duplicate: row.id !== id };
}

export function taskFeedbackOfRoom(db: Db, roomId: string, limit = 500) {
  return (
    stmt(db, 'SELECT * FROM task_feedback WHERE room_id = ? ORDER BY created_at DESC LIMIT ?').all(roomId, limit) as TaskFeedbackRow[]
  ).map(taskFeedbackDto);
}
