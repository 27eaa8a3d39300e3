import { z } from 'zod';

/**
 * The search records, declared once: the `search` tool's result and GET /v1/rooms/:id/search's
 * (and /v1/search's) response use these schemas, and shared/api-types.ts derives the UI's types
 * from them (`z.output`), importing types only (docs/architecture.md, "Use cases").
 */

/** What a hit is: search/service.ts `SEARCH_KINDS` searches these. */
export const searchKind = z.enum(['message', 'task', 'decision', 'file']);

/** One hit: `snippet` is plain text, `highlights` are [start, end) UTF-16 offsets into it. */
export const searchResult = z.object({
  kind: searchKind,
  id: z.string(),
  room: z.string(),
  snippet: z.string(),
  // Pairs, written as arrays of two: a JSON Schema tuple (prefixItems) reads as "no items" to a draft-07 validator.
  highlights: z.array(z.array(z.number().int()).length(2)),
  rank: z.number(),
  created_at: z.string(),
  seq: z.number().int().optional(),
  /** A task hit: its id and title. */
  task_id: z.string().optional(),
  title: z.string().optional(),
  /** A file hit: its path and its name (the last segment). */
  path: z.string().optional(),
  name: z.string().optional(),
});

export const searchOutput = z.object({ results: z.array(searchResult), next_cursor: z.string().nullable() });
