import { docUrl } from '../mcp/call.js';
import { AppError, toAppError } from '../errors/app-error.js';
import { ERROR_CODES, type ErrorCode } from '../../../shared/errors.js';
import { contracts } from '../../../shared/contracts/index.js';
import { agentCaller, defineUseCase } from '../usecase/define.js';
import { ownAgent } from '../agents/service.js';
import { DIAGNOSE_FAILED } from './classify.js';
import { getConsent, setConsent } from './consent.js';
import { diagnoseByCode, diagnoseEvidence, diagnoseFailed, ownEvidence } from './diagnose.js';
import { reportsForOwner } from './reports.js';
import { taskFeedbackOfRoom } from './task-feedback.js';
import { productFeedbackOfRoom } from './product.js';
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

/**
 * The feedback use cases, each declared once (usecase/define.ts): feedback/tools.ts and
 * feedback/routes.ts list the tools and routes they yield, in their places. The agents' tools act
 * on the calling agent itself; the humans' consent routes act on a plate the owner names (another
 * rule, docs/architecture.md "Use cases"), so the two pairs stay apart.
 */

// ---- the agents' tools ----------------------------------------------------------------------

export const diagnoseErrorUseCase = defineUseCase({
  input: diagnoseErrorInput,
  output: diagnoseErrorOutput,
  handler: ({ core, caller }, args) => {
    const url = (code: string) => docUrl(core, code);
    try {
      if (args.error_id) {
        const e = ownEvidence(core.db, agentCaller(caller).plate, args.error_id);
        if (!e) throw diagnoseFailed('NOT_FOUND', 'no error with this error_id among your failures');
        return diagnoseEvidence(core.db, url, e);
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
  tool: {
    name: 'diagnose_error',
    title: 'Diagnose an error',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Step 1 after any failed call: returns the classification, how to correct the call and retry advice for its error_id.',
  },
});

export const reportErrorUseCase = defineUseCase({
  input: reportErrorInput,
  output: reportErrorOutput,
  handler: ({ core, caller }, args) => {
    const agent = agentCaller(caller);
    return fileErrorReport(core, { plate: agent.plate, ownerId: agent.ownerId, errorId: args.error_id, taskId: args.task_id, impact: args.impact, note: args.note });
  },
  tool: {
    name: 'report_error',
    title: 'Report an error',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Reports a failure to the maintainers by error_id; use only when diagnose_error recommends it, a retry failed and your human gave bug consent. Returns the report.',
  },
});

export const getFeedbackConsentUseCase = defineUseCase({
  input: getConsentInput,
  output: consentOutput,
  handler: ({ core, caller }, args) => {
    const { plate } = agentCaller(caller);
    if (args.plate !== undefined && args.plate !== plate) {
      throw new AppError('FORBIDDEN', 'you may read only your own feedback consent', { reason: 'own_plate_only' });
    }
    return getConsent(core.db, plate);
  },
  tool: {
    name: 'get_feedback_consent',
    title: 'Read feedback consent',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'READ',
    description: 'Your feedback consent (bugs, product); read it before report_error or any feedback call.',
  },
});

export const setFeedbackConsentUseCase = defineUseCase({
  input: consentChange,
  output: consentOutput,
  handler: ({ core, caller }, args) => setConsent(core.db, agentCaller(caller).plate, args),
  tool: {
    name: 'set_feedback_consent',
    title: 'Set feedback consent',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: 'WRITE',
    description: 'Records your human\'s explicit answer about feedback (silence is no consent); use only after asking. Returns the consent.',
  },
});

export const submitTaskFeedbackUseCase = defineUseCase({
  input: submitTaskFeedbackInput,
  output: taskFeedbackOutput,
  room: 'member',
  handler: ({ core, caller }, args) => {
    const agent = agentCaller(caller);
    return fileTaskFeedback(core, {
      plate: agent.plate,
      ownerId: agent.ownerId,
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
  },
  tool: {
    name: 'submit_task_feedback',
    title: 'Submit task feedback',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Call right after finishing, failing or blocking your task: outcome clean, or issue with cited evidence (needs bug consent); returns the feedback.',
  },
});

export const submitProductFeedbackUseCase = defineUseCase({
  input: submitProductFeedbackInput,
  output: productFeedbackOutput,
  room: 'member',
  handler: ({ core, caller }, args) => {
    const agent = agentCaller(caller);
    return fileProductFeedback(core, {
      plate: agent.plate,
      ownerId: agent.ownerId,
      roomId: args.room,
      sessionId: agent.sessionId,
      answers: args.answers ?? 'no notes',
    });
  },
  tool: {
    name: 'submit_product_feedback',
    title: 'Submit product feedback',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    scope: 'WRITE',
    description: 'Optional product feedback with your human\'s consent, after 3 completed tasks; a declined call returns {recorded: false}, do not retry.',
  },
});

// ---- what humans read and answer (/v1) ------------------------------------------------------

export const listReportsUseCase = defineUseCase({
  route: { contract: contracts.feedback.listReports },
  handler: ({ core, caller }) => ({ reports: reportsForOwner(core.db, caller.ownerId) }),
});

export const roomFeedbackUseCase = defineUseCase({
  room: 'member',
  route: { contract: contracts.feedback.readRoom },
  handler: ({ core, room }) => {
    if (!room) throw new Error('a room use case runs behind the room check');
    return { room: room.id, task_feedback: taskFeedbackOfRoom(core.db, room.id), product_feedback: productFeedbackOfRoom(core.db, room.id) };
  },
});

export const readAgentConsentUseCase = defineUseCase({
  route: { contract: contracts.feedback.readConsent },
  handler: ({ core, caller }, { params }) => getConsent(core.db, ownAgent(core, caller.owner, params.plate).plate),
});

/** The owner answering for their own agent is the most direct consent there is. */
export const setAgentConsentUseCase = defineUseCase({
  route: { contract: contracts.feedback.setConsent },
  handler: ({ core, caller }, { params, body }) => setConsent(core.db, ownAgent(core, caller.owner, params.plate).plate, body),
});
