import { readRoomUseCase, sendMessageUseCase } from './use-cases.js';

/** The messages' tools, generated from their use cases (messages/use-cases.ts). */
export const messageTools = [readRoomUseCase.tool, sendMessageUseCase.tool];
