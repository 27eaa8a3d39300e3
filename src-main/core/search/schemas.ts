import { z } from 'zod';
import { cursorArg, kindsArg, limitArg } from '../../../shared/schemas/search.js';

// The fields, GET /v1/rooms/:id/search's query and the results are in shared/schemas/search.ts (shared/contracts/search.ts).

export const searchInput = z.object({
  room: z.string().min(1).max(200),
  query: z.string().max(1000).describe('Plain words, e.g. flaky cart_total spec'),
  kinds: kindsArg.optional(),
  limit: limitArg.optional(),
  cursor: cursorArg.optional(),
});

export { searchOutput, searchQuery } from '../../../shared/schemas/search.js';
