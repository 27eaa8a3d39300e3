import { z } from 'zod';

/**
 * The search records and fields, declared once: the `search` tool's input and result and GET
 * /v1/rooms/:id/search's (and /v1/search's) query and answer (shared/contracts/search.ts) use
 * these schemas, and shared/api-types.ts derives the UI's types from them, importing types only
 * (docs/architecture.md, "Contracts").
 */

/** What a hit is: search/service.ts searches these. */
export const SEARCH_KINDS = ['message', 'task', 'decision', 'file'] as const;
export const searchKind = z.enum(SEARCH_KINDS);

/** The most hits one page holds (search/service.ts clamps to it too). */
export const SEARCH_LIMIT_MAX = 100;

// ---- fields: the `search` tool and the window's query take the same ones ----------------------

export const kindsArg = z.array(z.enum(SEARCH_KINDS)).max(4);
export const limitArg = z.number().int().min(1).max(SEARCH_LIMIT_MAX);
export const cursorArg = z.string().min(1).max(200);

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

// ---- records ------------------------------------------------------------------------------------

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
