import type { z } from 'zod';
import { defineUseCase } from '../usecase/define.js';
import { search } from './service.js';
import { searchInput, searchOutput, searchQuery } from './schemas.js';

/**
 * Search in one room, declared once (usecase/define.ts) for the `search` tool and
 * GET /v1/rooms/:id/search; GET /v1/search (every room of the owner) is the window's alone
 * (search/routes.ts). docs/search.md.
 */
export const searchRoomUseCase = defineUseCase({
  input: searchInput,
  output: searchOutput,
  room: 'member',
  handler: ({ core }, a) => search(core.db, { rooms: [a.room], query: a.query, kinds: a.kinds, limit: a.limit, cursor: a.cursor }),
  tool: {
    name: 'search',
    scope: 'READ',
    title: 'Search the room',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    description: 'Full-text search of the room\'s messages, tasks, decisions and files, best first; use it instead of paging history. Returns results and next_cursor.',
  },
  route: {
    method: 'GET',
    path: '/v1/rooms/:id/search',
    query: searchQuery,
    // The query string names the words `q` (none: no results) and the kinds comma-separated.
    input: ({ params, query }) => {
      const q = query as z.output<typeof searchQuery>;
      return { room: params.id, query: q.q ?? '', kinds: q.kinds, limit: q.limit, cursor: q.cursor };
    },
  },
});
