import { z } from 'zod';

/**
 * The feedback and error-report records of the human API, declared once here; shared/api-types.ts
 * derives the UI's types from them (`z.output`, types only).
 */

/** An agent's feedback on one task step (submit_task_feedback). */
export const taskFeedbackRecord = z.object({
  feedback_id: z.string(),
  room: z.string(),
  task_id: z.string().nullable(),
  plate: z.string(),
  kind: z.enum(['task', 'contract_mismatch']),
  outcome: z.enum(['clean', 'issue']),
  task_status: z.string().nullable(),
  error_id: z.string().nullable(),
  issue: z.string().nullable(),
  recommended_fix: z.string().nullable(),
  severity: z.string().nullable(),
  recurrence: z.object({ count: z.number(), recurring: z.boolean() }),
  created_at: z.string(),
});

/** An agent's answers to the product questions (submit_product_feedback). */
export const productFeedbackRecord = z.object({
  feedback_id: z.string(),
  plate: z.string(),
  /** The answers, or the words 'no notes'. */
  answers: z.union([z.record(z.string(), z.string()), z.string()]),
  created_at: z.string(),
});

/** GET /v1/rooms/:id/feedback */
export const roomFeedbackRecord = z.object({
  room: z.string(),
  task_feedback: z.array(taskFeedbackRecord),
  product_feedback: z.array(productFeedbackRecord),
});

/** An error report an agent filed with consent (report_error); evidence holds no secrets or contents. */
export const errorReportRecord = z.object({
  report_id: z.string(),
  error_id: z.string(),
  plate: z.string(),
  room: z.string().nullable(),
  task_id: z.string().nullable(),
  tool: z.string().nullable(),
  code: z.string(),
  classification: z.string(),
  impact: z.string().nullable(),
  note: z.string().nullable(),
  recurrence: z.object({ reports: z.number(), recurring: z.boolean(), first_reported_at: z.string().nullable() }),
  created_at: z.string(),
});

/** GET /v1/reports: the reports of the caller's agents and of the rooms they belong to, newest first. */
export const reportsRecord = z.object({ reports: z.array(errorReportRecord) });

/** What the human allowed for one plate: bug reports (error reports, issue feedback) and product feedback (get_feedback_consent, GET /v1/agents/:plate/feedback-consent). */
export const feedbackConsentRecord = z.object({
  plate: z.string(),
  bugs: z.boolean(),
  product: z.boolean(),
  granted_at: z.string().nullable(),
  revoked: z.boolean(),
});

/** The human's answer about feedback: set_feedback_consent's input, and the body of PUT /v1/agents/:plate/feedback-consent (the owner answering). */
export const consentChange = z.object({
  bugs: z.boolean().optional().describe('The human allows error reports and issue feedback'),
  product: z.boolean().optional().describe('The human allows product feedback'),
  revoked: z.boolean().optional().describe('true: the human said no; turns both off'),
});
