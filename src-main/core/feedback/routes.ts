import { listReportsUseCase, readAgentConsentUseCase, roomFeedbackUseCase, setAgentConsentUseCase } from './use-cases.js';

/** What humans read of feedback: error reports, a room's task and product feedback, their agents' consent (feedback/use-cases.ts). */
export const feedbackRoutes = [listReportsUseCase.route, roomFeedbackUseCase.route, readAgentConsentUseCase.route, setAgentConsentUseCase.route];
