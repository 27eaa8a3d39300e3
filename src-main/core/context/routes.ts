import { addDecisionUseCase, listDecisionsUseCase, readFocusUseCase, setFocusUseCase } from './use-cases.js';

/** Durable room context set by humans: the current focus and the decisions (context/use-cases.ts, contracts in shared/contracts/context.ts). */
export const contextRoutes = [readFocusUseCase.route, setFocusUseCase.route, listDecisionsUseCase.route, addDecisionUseCase.route];
