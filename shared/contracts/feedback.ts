import { endpoint } from './contract.js';
import { consentChange, feedbackConsentRecord, reportsRecord, roomFeedbackRecord } from '../schemas/feedback.js';

/**
 * What humans read of feedback (docs/feedback.md): the error reports they may see, a room's task
 * and product feedback, and their own agents' feedback consent (the owner answering for an agent
 * is the most direct consent there is).
 */
export const feedback = {
  listReports: endpoint({
    method: 'GET',
    path: '/v1/reports',
    summary: 'The error reports of the caller’s agents and of the rooms they belong to, newest first.',
    output: reportsRecord,
  }),
  readRoom: endpoint({
    method: 'GET',
    path: '/v1/rooms/:id/feedback',
    summary: 'A room’s task feedback and product feedback from its agents.',
    output: roomFeedbackRecord,
  }),
  readConsent: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate/feedback-consent',
    summary: 'The feedback consent of one of the caller’s agents.',
    output: feedbackConsentRecord,
  }),
  setConsent: endpoint({
    method: 'PUT',
    path: '/v1/agents/:plate/feedback-consent',
    summary: 'Records the owner’s answer about feedback for one of their agents (revoked turns both off).',
    body: consentChange,
    output: feedbackConsentRecord,
  }),
};
