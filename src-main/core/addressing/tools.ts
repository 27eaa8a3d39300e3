import { listInstancesUseCase, resolveHandleUseCase } from './use-cases.js';

/** The addressing tools, generated from their use cases (addressing/use-cases.ts). */
export const addressingTools = [resolveHandleUseCase.tool, listInstancesUseCase.tool];
