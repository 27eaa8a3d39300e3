import {
  diagnoseErrorUseCase,
  getFeedbackConsentUseCase,
  reportErrorUseCase,
  setFeedbackConsentUseCase,
  submitProductFeedbackUseCase,
  submitTaskFeedbackUseCase,
} from './use-cases.js';

/** The feedback tools: each is generated from its use case (feedback/use-cases.ts). */
export const feedbackTools = [
  diagnoseErrorUseCase.tool,
  reportErrorUseCase.tool,
  getFeedbackConsentUseCase.tool,
  setFeedbackConsentUseCase.tool,
  submitTaskFeedbackUseCase.tool,
  submitProductFeedbackUseCase.tool,
];
