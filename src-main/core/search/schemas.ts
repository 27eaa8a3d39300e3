import { z } from 'zod';
import { SEARCH_KINDS, SEARCH_LIMIT_MAX } from './service.js';

const kindsArg = z.array(z.enum(SEARCH_KINDS)).max(4);
const limitArg = z.number().int().min(1).max(SEARCH_LIMIT_MAX);
const cursorArg = z.string().min(1).max(200);

export const searchInput = z.object({
  room: z.string().min(1).max(200),
  query: z.string().max(1000).describe('Plain words, e.g. flaky cart_total spec'),
  kinds: kindsArg.optional(),
  limit: limitArg.optional(),
  cursor: cursorArg.optional(),
});

/** GET /v1/rooms/:id/search and /v1/search: the tool's arguments as query parameters (`q`; `kinds` comma-separated). */
export const searchQuery = z.object({
  q: z.string().max(1000).optional(),
  kinds: z
    .string()
    .max(200)
    .optional()
    .transform((s) => (s ? s.split(',') : undefined))
    .pipe(kindsArg.optional()),
  limit: z.coerce.number().int().min(1).max(SEARCH_LIMIT_MAX).optional(),
  cursor: cursorArg.optional(),
});

// The results are in shared/schemas/search.ts (the UI derives its types from them).
export { searchOutput } from '../../../shared/schemas/search.js';
