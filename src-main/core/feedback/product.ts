import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { newId } from '../util/ids.js';
import { requireTechnical } from './incidents.js';
import { doneTaskCount } from '../tasks/store.js';

/** docs/contract.md "Limits": at least 3 completed tasks by the plate, once per MCP session. */
export const PRODUCT_FEEDBACK_MIN_DONE = 3;

export type ProductAnswers = Record<string, string> | 'no notes';

export type ProductDecline = { recorded: false; reason: 'product_consent_missing' | 'too_few_completed_tasks' | 'already_sent_this_session'; message: string };

export function completedTasks(db: Db, plate: string): number {
  return doneTaskCount(db, plate);
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
