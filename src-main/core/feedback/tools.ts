import { defineTool } from '../mcp/tool.js';
import { docUrl } from '../mcp/call.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../../../shared/errors.js';
import { DIAGNOSE_FAILED } from './classify.js';
import { getConsent, setConsent } from './consent.js';
import { diagnoseByCode, diagnoseEvidence, diagnoseFailed, ownEvidence } from './diagnose.js';
import { fileErrorReport, fileProductFeedback, fileTaskFeedback } from './service.js';
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
    description: 'Step 1 after any failed call: returns the classification, how to correct the call and retry advice for its error_id.',
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
    description: 'Reports a failure to the maintainers by error_id; use only when diagnose_error recommends it, a retry failed and your human gave bug consent. Returns the report.',
    input: reportErrorInput,
    output: reportErrorOutput,
    handler: (ctx, args) =>
      fileErrorReport(ctx.core, {
        plate: ctx.agent.plate,
        ownerId: ctx.agent.ownerId,
        errorId: args.error_id,
        taskId: args.task_id,
        impact: args.impact,
        note: args.note,
      }),
  }),
  defineTool({
    name: 'get_feedback_consent',
    title: 'Read feedback consent',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your feedback consent (bugs, product); read it before report_error or any feedback call.',
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
    description: 'Records your human\'s explicit answer about feedback (silence is no consent); use only after asking. Returns the consent.',
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
    description: 'Call right after finishing, failing or blocking your task: outcome clean, or issue with cited evidence (needs bug consent); returns the feedback.',
    input: submitTaskFeedbackInput,
    output: taskFeedbackOutput,
    handler: (ctx, args) =>
      fileTaskFeedback(ctx.core, {
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
      }),
  }),
  defineTool({
    name: 'submit_product_feedback',
    title: 'Submit product feedback',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    room: 'member',
    description: 'Optional product feedback with your human\'s consent, after 3 completed tasks; a declined call returns {recorded: false}, do not retry.',
    input: submitProductFeedbackInput,
    output: productFeedbackOutput,
    handler: (ctx, args) =>
      fileProductFeedback(ctx.core, {
        plate: ctx.agent.plate,
        ownerId: ctx.agent.ownerId,
        roomId: args.room,
        sessionId: ctx.sessionId,
        answers: args.answers ?? 'no notes',
      }),
  }),
];
