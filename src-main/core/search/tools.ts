import { searchRoomUseCase } from './use-cases.js';

/** One use case with GET /v1/rooms/:id/search (search/use-cases.ts). */
export const searchTools = [searchRoomUseCase.tool];
