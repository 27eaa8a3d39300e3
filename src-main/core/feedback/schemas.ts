import { z } from 'zod';
import { roomIdArg } from '../rooms/tools.js';
import { CLASSIFICATIONS } from './classify.js';

// ---- tool inputs (and the consent route's body) ----------------------------------------

const errorIdArg = z.string().min(1).max(200).describe('The error_id of your failed call (err_…), exactly as returned');
const severity = z.enum(['blocker', 'degraded', 'minor']);

export const diagnoseErrorInput = z.object({
  error_id: z.string().max(200).optional().describe('The error_id of your failed call'),
  tool: z.string().max(100).optional().describe('Fallback only: the tool that failed'),
  code: z.string().max(40).optional().describe('Fallback only: the error code, e.g. CONFLICT'),
});

export const reportErrorInput = z.object({
  error_id: errorIdArg,
  task_id: z.string().min(1).max(200).optional().describe('The task the failure affected, if any'),
  impact: severity.optional().describe('blocker: work stopped; degraded: worked around; minor: cosmetic'),
  note: z.string().min(1).max(500).optional().describe('Technical impact only; no secrets, personal data, paths, code or quotes'),
});

export const getConsentInput = z.object({
  plate: z.string().min(1).max(40).optional().describe('Your own plate (the default); any other plate is refused'),
});

/** set_feedback_consent's input, and the body of PUT /v1/agents/:plate/feedback-consent (the owner answering): one schema, in shared/. */
export { consentChange } from '../../../shared/schemas/feedback.js';

const issueEvidence = z.object({
  tool: z.string().min(1).max(100).describe('The tool whose result you cite'),
  expected: z.string().min(1).max(1000).describe('What the specification or your call expected'),
  got: z.string().min(1).max(1000).describe('What the tool actually did (described, not pasted)'),
});

export const submitTaskFeedbackInput = z.object({
  room: roomIdArg,
  task_id: z.string().min(1).max(200).optional().describe('The task you just completed, failed or blocked'),
  outcome: z.enum(['clean', 'issue']),
  evidence: issueEvidence.optional(),
  issue: z.string().min(1).max(2000).optional().describe('3 to 4 sentences of technical fact: what went wrong, its effect; no secrets, paths or quotes'),
  recommended_fix: z.string().min(1).max(1500).optional().describe('Exactly 3 sentences'),
  severity: severity.optional(),
  origin: z.enum(['agent_noticed', 'human_struggle']).optional(),
  contract_mismatch: z.boolean().optional().describe('Legacy: a contract mismatch without an error_id'),
  error_id: z.string().min(1).max(200).optional().describe('Only if the issue has an error_id that was not sent to report_error'),
});

export const submitProductFeedbackInput = z.object({
  room: roomIdArg,
  answers: z
    .union([z.literal('no notes'), z.record(z.string().min(1).max(200), z.string().max(2000)).refine((o) => Object.keys(o).length <= 20, 'at most 20 answers')])
    .optional()
    .describe('{question: answer} or "no notes"'),
});

// ---- results ----------------------------------------------------------------------------

/** diagnose_error's result: from the stored evidence of an error_id, or generic advice from a tool and code (no evidence). */
export const diagnoseErrorOutput = z.object({
  error_id: z.string().nullable(),
  evidence_available: z.boolean(),
  tool: z.string().nullable(),
  code: z.string(),
  reason: z.string().nullable().optional(),
  http_status: z.number().int().optional(),
  classification: z.enum(CLASSIFICATIONS),
  summary: z.string(),
  steps: z.array(z.string()),
  retry: z.object({ retryable: z.boolean(), delay_ms: z.number().int().optional(), max_attempts: z.number().int() }),
  resolved_by_retry: z.boolean().optional(),
  fingerprint: z.string().optional(),
  occurrences: z.number().int().optional(),
  occurred_at: z.string().optional(),
  doc_url: z.string(),
  feedback: z.object({
    recommended: z.boolean(),
    why: z.string(),
    bug_consent: z.boolean().nullable(),
    already_reported: z.boolean(),
    next_action: z.string(),
  }),
});

/** report_error's result: the stored report (reportDto), and whether this call repeated an earlier one. */
export const reportErrorOutput = z.object({
  report_id: z.string(),
  error_id: z.string(),
  recorded: z.boolean(),
  plate: z.string(),
  room: z.string().nullable(),
  task_id: z.string().nullable(),
  tool: z.string().nullable(),
  code: z.string(),
  classification: z.string(),
  impact: z.string().nullable(),
  note: z.string().nullable(),
  fingerprint: z.string(),
  recurrence: z.object({ reports: z.number().int(), recurring: z.boolean(), first_reported_at: z.string().nullable() }),
  trace: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  duplicate: z.boolean(),
});

/** get_feedback_consent and set_feedback_consent: the plate's consent (the record GET /v1/agents/:plate/feedback-consent answers). */
export { feedbackConsentRecord as consentOutput } from '../../../shared/schemas/feedback.js';

/** submit_task_feedback's result: the stored feedback (taskFeedbackDto), and whether this call repeated an earlier one. */
export const taskFeedbackOutput = z.object({
  feedback_id: z.string(),
  recorded: z.boolean(),
  room: z.string(),
  task_id: z.string().nullable(),
  plate: z.string(),
  kind: z.enum(['task', 'contract_mismatch']),
  outcome: z.enum(['clean', 'issue']),
  task_status: z.string().nullable(),
  error_id: z.string().nullable(),
  evidence: z.object({ tool: z.string(), expected: z.string(), got: z.string() }).nullable(),
  issue: z.string().nullable(),
  recommended_fix: z.string().nullable(),
  severity: z.string().nullable(),
  origin: z.string().nullable(),
  fingerprint: z.string().nullable(),
  recurrence: z.object({ count: z.number().int(), recurring: z.boolean() }),
  created_at: z.string(),
  duplicate: z.boolean(),
});

/** submit_product_feedback's result: recorded, or declined with a reason (an answer, not an error). */
export const productFeedbackOutput = z.object({
  recorded: z.boolean(),
  reason: z.enum(['product_consent_missing', 'too_few_completed_tasks', 'already_sent_this_session']).optional(),
  message: z.string().optional(),
  feedback_id: z.string().optional(),
  no_notes: z.boolean().optional(),
  created_at: z.string().optional(),
});
