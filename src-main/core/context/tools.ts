import { roomContextUseCase } from './use-cases.js';

/** get_room_context (context/use-cases.ts). */
export const contextTools = [roomContextUseCase.tool];
