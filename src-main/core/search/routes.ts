import { searchAllUseCase, searchRoomUseCase } from './use-cases.js';

/** Full-text search for humans: one room (a use case shared with the `search` tool), or every room the caller is in (docs/search.md). */
export const searchRoutes = [searchRoomUseCase.route, searchAllUseCase.route];
