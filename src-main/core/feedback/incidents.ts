import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError } from '../errors/app-error.js';
import { getTaskRow } from '../tasks/store.js';
import { isAgentMember } from '../rooms/store.js';
import { describeSensitive, findSensitive } from './sensitive.js';

// What every kind of feedback shares: technical text only, tasks of the caller's rooms, and
// an incident (an error_id) sent once, as an error report or inside task feedback.

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
export function taskOfCaller(db: Db, plate: string, taskId: string) {
  const t = getTaskRow(db, taskId);
  const member = t && isAgentMember(db, t.room_id, plate);
  if (!t || !member) throw new AppError('NOT_FOUND', 'task not found in your rooms; check task_id with read_board');
  return t;
}

/** The incident was sent with report_error. */
export function inErrorReports(db: Db, errorId: string): boolean {
  return stmt(db, 'SELECT 1 FROM error_reports WHERE error_id = ?').get(errorId) !== undefined;
}

/** The incident was sent inside task feedback. */
export function inTaskFeedback(db: Db, errorId: string): boolean {
  return stmt(db, 'SELECT 1 FROM task_feedback WHERE error_id = ?').get(errorId) !== undefined;
}
