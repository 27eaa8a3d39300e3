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

/** One hit (shared/api-types.ts `SearchResult`): highlights are [start, end) offsets into the snippet. */
const searchResult = z.object({
  kind: z.enum(SEARCH_KINDS),
  id: z.string(),
  room: z.string(),
  snippet: z.string(),
  // Pairs, written as arrays of two: a JSON Schema tuple (prefixItems) reads as "no items" to a draft-07 validator.
  highlights: z.array(z.array(z.number().int()).length(2)),
  rank: z.number(),
  created_at: z.string(),
  seq: z.number().int().optional(),
  task_id: z.string().optional(),
  title: z.string().optional(),
  path: z.string().optional(),
  name: z.string().optional(),
});

export const searchOutput = z.object({ results: z.array(searchResult), next_cursor: z.string().nullable() });
