import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { AppError } from '../errors/app-error.js';
import { roomIdsOfOwner } from '../rooms/store.js';
import { requireBugConsent } from './consent.js';
import { isDiagnoseFailure, ownEvidence, verdictOf } from './diagnose.js';
import { inTaskFeedback, requireTechnical, taskOfCaller } from './incidents.js';

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
  requireBugConsent(db, input.plate, 'bug reports need your human’s consent');
  if (input.note !== undefined) requireTechnical('note', input.note);
  if (inTaskFeedback(db, e.error_id)) {
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

/** Error ids older than `before` that a report refers to: evidence retention keeps them (core.ports.reportedErrorIds). */
export function reportedErrorIdsBefore(db: Db, before: string): string[] {
  return (stmt(db, 'SELECT error_id FROM error_reports WHERE error_id < ?').all(before) as Array<{ error_id: string }>).map((r) => r.error_id);
}

/** Error reports a human may read: those of their own agents and those tied to rooms they belong to. */
export function reportsForOwner(db: Db, ownerId: string, limit = 200) {
  const rows = stmt(
    db,
    `SELECT * FROM error_reports WHERE owner_id = ?
       OR room_id IN (SELECT value FROM json_each(?))
     ORDER BY created_at DESC LIMIT ?`,
  ).all(ownerId, JSON.stringify(roomIdsOfOwner(db, ownerId)), limit) as ReportRow[];
  return rows.map((r) => reportDto(db, r));
}
