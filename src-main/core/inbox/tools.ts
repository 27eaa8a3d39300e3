import { ackMentionsUseCase, checkMentionsUseCase } from './use-cases.js';

/** The inbox's tools, generated from their use cases (inbox/use-cases.ts). */
export const inboxTools = [checkMentionsUseCase.tool, ackMentionsUseCase.tool];
