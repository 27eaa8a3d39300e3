import type { Core } from '../core.js';
import { reportError, type ReportInput } from './reports.js';
import { submitTaskFeedback, type TaskFeedbackInput } from './task-feedback.js';
import { requireProductConsent } from './consent.js';
import { productGate, recordProductFeedback, type ProductAnswers } from './product.js';

/**
 * The agents' feedback use cases (docs/feedback.md): each stores, then tells the windows that
 * show it (after the write; a repeat that stored nothing tells nobody). The tools only call them.
 */

/** report_error: the report, and `reports.changed` for whoever may read it. */
export function fileErrorReport(core: Core, input: ReportInput) {
  const out = reportError(core.db, input);
  if (!out.duplicate) {
    // Readable by the agent's owner and by the humans of the room it is tied to (reportsForOwner).
    core.bus.emit({ type: 'reports.changed', owners: [input.ownerId] });
    if (out.room) core.bus.emit({ type: 'reports.changed', room: out.room });
  }
  return out;
}

/** submit_task_feedback: the feedback, and `feedback.changed` for its room. */
export function fileTaskFeedback(core: Core, input: TaskFeedbackInput) {
  const out = submitTaskFeedback(core.db, input);
  if (!out.duplicate) core.bus.emit({ type: 'feedback.changed', room: out.room });
  return out;
}

/**
 * submit_product_feedback: needs product consent; once per MCP session and after enough
 * completed tasks, else a decline (an answer, not an error); `feedback.changed` once stored.
 */
export function fileProductFeedback(core: Core, input: { plate: string; ownerId: string; roomId: string; sessionId: string; answers: ProductAnswers }) {
  const { db } = core;
  requireProductConsent(db, input.plate);
  const session = core.sessions.get(input.sessionId);
  const declined = productGate(db, input.plate, session?.productFeedbackSent === true);
  if (declined) return declined;
  const out = recordProductFeedback(db, input);
  if (session) session.productFeedbackSent = true;
  core.bus.emit({ type: 'feedback.changed', room: input.roomId });
  return out;
}
