import type { z } from 'zod';
import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { roomsOfOwner, search } from './service.js';
import { searchInput, searchOutput, type searchQuery } from './schemas.js';

/**
 * Search, declared once (usecase/define.ts): one room for the `search` tool and
 * GET /v1/rooms/:id/search; every room of the owner for the window alone (GET /v1/search).
 * The wire faces are shared/contracts/search.ts. docs/search.md.
 */

/** The query string names the words `q` (none: no results) and the kinds comma-separated. */
const searchOf = (q: z.output<typeof searchQuery>) => ({ query: q.q ?? '', kinds: q.kinds, limit: q.limit, cursor: q.cursor });

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
    contract: contracts.search.room,
    input: ({ params, query }) => ({ room: params.id, ...searchOf(query as z.output<typeof searchQuery>) }),
  },
});

/** Every room the owner is in. */
export const searchAllUseCase = defineUseCase({
  route: { contract: contracts.search.all },
  handler: ({ core, caller }, { query }) => search(core.db, { rooms: roomsOfOwner(core.db, caller.ownerId), ...searchOf(query) }),
});
