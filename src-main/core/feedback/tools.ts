import { defineTool } from '../mcp/tool.js';
import { docUrl } from '../mcp/call.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../../../shared/errors.js';
import { DIAGNOSE_FAILED } from './classify.js';
import { getConsent, requireProductConsent, setConsent } from './consent.js';
import { diagnoseByCode, diagnoseEvidence, diagnoseFailed, ownEvidence } from './diagnose.js';
import { reportError } from './reports.js';
import { submitTaskFeedback } from './task-feedback.js';
import { productGate, recordProductFeedback } from './product.js';
import {
  consentChange,
  consentOutput,
  diagnoseErrorInput,
  diagnoseErrorOutput,
  getConsentInput,
  productFeedbackOutput,
  reportErrorInput,
  reportErrorOutput,
  submitProductFeedbackInput,
  submitTaskFeedbackInput,
  taskFeedbackOutput,
} from './schemas.js';

export const feedbackTools = [
  defineTool({
    name: 'diagnose_error',
    title: 'Diagnose an error',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description:
      'Step 1 after any failed call: pass its error_id. Returns the classification (caller_misuse, authentication, permission, state, transient, server_fault, contract_mismatch), steps to correct the call, retry advice with delay_ms, evidence_available, and feedback.recommended (true only for a server fault or contract mismatch that a retry did not fix). Only your own error_ids. tool and code are a fallback when the error_id was lost (no evidence, never reportable). If diagnose_error itself fails, stop: never diagnose or report that failure.',
    input: diagnoseErrorInput,
    output: diagnoseErrorOutput,
    handler: (ctx, args) => {
      const url = (code: string) => docUrl(ctx.core, code);
      try {
        if (args.error_id) {
          const e = ownEvidence(ctx.core.db, ctx.agent.plate, args.error_id);
          if (!e) throw diagnoseFailed('NOT_FOUND', 'no error with this error_id among your failures');
          return diagnoseEvidence(ctx.core.db, url, e);
        }
        if (!args.code) throw diagnoseFailed('INVALID_ARGUMENT', 'give the error_id of your failed call (or, as a fallback, its tool and code)');
        if (!(ERROR_CODES as readonly string[]).includes(args.code)) throw diagnoseFailed('INVALID_ARGUMENT', 'code is not an error code of this server');
        return diagnoseByCode(url, args.tool, args.code as ErrorCode);
      } catch (err) {
        // Every failure of diagnose_error says so, so it is never fed back into the reporting flow.
        const e = toAppError(err);
        if (e.reason === DIAGNOSE_FAILED) throw e;
        throw new AppError(e.code, `${e.message}; diagnose_error failed: stop the diagnostic flow and do not report this failure`, {
          reason: DIAGNOSE_FAILED,
          retryable: false,
        });
      }
    },
  }),
  defineTool({
    name: 'report_error',
    title: 'Report an error',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description:
      'Last step of the error flow: report a failure to the maintainers. Use only when diagnose_error returned evidence_available:true and feedback.recommended:true, the retried call failed again, and your human gave bug consent (get_feedback_consent). The server builds the trace from its own evidence; never paste arguments, messages, file contents or secrets. note: optional, technical impact only (e.g. "the board could not be updated, so the task stayed in doing"). Repeating the call for the same error_id returns the first report. Do not also send the incident through submit_task_feedback.',
    input: reportErrorInput,
    output: reportErrorOutput,
    handler: (ctx, args) => {
      const out = reportError(ctx.core.db, {
        plate: ctx.agent.plate,
        ownerId: ctx.agent.ownerId,
        errorId: args.error_id,
        taskId: args.task_id,
        impact: args.impact,
        note: args.note,
      });
      if (!out.duplicate) {
        // Readable by the agent's owner and by the humans of the room it is tied to (reportsForOwner).
        ctx.core.bus.emit({ type: 'reports.changed', owners: [ctx.agent.ownerId] });
        if (out.room) ctx.core.bus.emit({ type: 'reports.changed', room: out.room });
      }
      return out;
    },
  }),
  defineTool({
    name: 'get_feedback_consent',
    title: 'Read feedback consent',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description:
      'Your own feedback consent: {bugs, product, granted_at, revoked}. Both default off; a revoked consent reads as both off. Read it before report_error, an issue in submit_task_feedback, or submit_product_feedback. You may read only your own plate.',
    input: getConsentInput,
    output: consentOutput,
    handler: (ctx, args) => {
      if (args.plate !== undefined && args.plate !== ctx.agent.plate) {
        throw new AppError('FORBIDDEN', 'you may read only your own feedback consent', { reason: 'own_plate_only' });
      }
      return getConsent(ctx.core.db, ctx.agent.plate);
    },
  }),
  defineTool({
    name: 'set_feedback_consent',
    title: 'Set feedback consent',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description:
      "Record your human's explicit answer about feedback for your own plate. Ask the human directly; a clear yes to bug reports is {bugs:true}, to product feedback {product:true}; a no is {revoked:true} (both off). Silence or ambiguity is not consent, and never infer it. Returns the consent as get_feedback_consent does.",
    input: consentChange,
    output: consentOutput,
    handler: (ctx, args) => setConsent(ctx.core.db, ctx.agent.plate, args),
  }),
  defineTool({
    name: 'submit_task_feedback',
    title: 'Submit task feedback',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    room: 'member',
    description:
      'Call right after complete_task(done) or set_status(failed|blocked) on your own task. outcome "clean": nothing went wrong (no consent needed). outcome "issue": needs bug consent and evidence {tool, expected, got} citing what a tool returned (no citation, no report), issue (3 to 4 sentences), recommended_fix (exactly 3 sentences), severity (blocker|degraded|minor, from facts) and origin (agent_noticed|human_struggle). Technical facts only: no secrets, personal data, paths, code or message quotes. Legacy: contract_mismatch:true reports a tool that differs from its specification when there is no error_id (evidence and bug consent required, task_id optional). Failures that have an error_id go to report_error instead. Repeating the call for the same task step returns the first feedback.',
    input: submitTaskFeedbackInput,
    output: taskFeedbackOutput,
    handler: (ctx, args) => {
      const out = submitTaskFeedback(ctx.core.db, {
        plate: ctx.agent.plate,
        ownerId: ctx.agent.ownerId,
        roomId: args.room,
        taskId: args.task_id,
        outcome: args.outcome,
        contractMismatch: args.contract_mismatch,
        errorId: args.error_id,
        evidence: args.evidence,
        issue: args.issue,
        recommendedFix: args.recommended_fix,
        severity: args.severity,
        origin: args.origin,
      });
      if (!out.duplicate) ctx.core.bus.emit({ type: 'feedback.changed', room: out.room });
      return out;
    },
  }),
  defineTool({
    name: 'submit_product_feedback',
    title: 'Submit product feedback',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    room: 'member',
    description:
      'Optional product feedback about Agent Rooms, with your human\'s product consent. Opens after 3 tasks you completed, at most once per session. answers: an object of question to short answer, or "no notes" (a valid answer). When declined it returns {recorded:false, reason}: that is expected, not an error; do not retry.',
    input: submitProductFeedbackInput,
    output: productFeedbackOutput,
    handler: (ctx, args) => {
      const { db } = ctx.core;
      requireProductConsent(db, ctx.agent.plate);
      const session = ctx.core.sessions.get(ctx.sessionId);
      const declined = productGate(db, ctx.agent.plate, session?.productFeedbackSent === true);
      if (declined) return declined;
      const out = recordProductFeedback(db, {
        plate: ctx.agent.plate,
        ownerId: ctx.agent.ownerId,
        roomId: args.room,
        sessionId: ctx.sessionId,
        answers: args.answers ?? 'no notes',
      });
      if (session) session.productFeedbackSent = true;
      ctx.core.bus.emit({ type: 'feedback.changed', room: args.room });
      return out;
    },
  }),
];
