import type { z } from 'zod';
import { defineRoute } from '../http/router.js';
import { roomsOfOwner, search } from './service.js';
import { searchQuery } from './schemas.js';
import { searchRoomUseCase } from './use-cases.js';

const searchOf = (q: z.infer<typeof searchQuery>) => ({ query: q.q ?? '', kinds: q.kinds, limit: q.limit, cursor: q.cursor });

/** Full-text search for humans: one room (a use case shared with the `search` tool), or every room the caller is in (docs/search.md). */
export const searchRoutes = [
  searchRoomUseCase.route,
  defineRoute({
    method: 'GET',
    path: '/v1/search',
    query: searchQuery,
    handler: ({ core, owner }, { query }) => search(core.db, { rooms: roomsOfOwner(core.db, owner.owner_id), ...searchOf(query) }),
  }),
];
