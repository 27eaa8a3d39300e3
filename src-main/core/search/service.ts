import { performance } from 'node:perf_hooks';
import type { Db } from '../db/open.js';
import { AppError } from '../errors/app-error.js';
import { stmt } from '../db/stmt.js';
import { decodeCursor, encodeCursor } from '../util/cursor.js';
import { bm25Scores, makeSnippet, queryWords, SCORE_CHARS, snippetScanChars, toFtsQuery, toPrefixQuery } from './query.js';
import { OTHER_BASE } from '../db/migrations/0009-search.js';
import { roomIdsOfOwner } from '../rooms/store.js';
import { indexPendingMessages, SEARCH_FLUSH_BATCHES } from './indexer.js';
import type { z } from 'zod';
import { SEARCH_LIMIT_MAX, type SEARCH_KINDS, type searchOutput, type searchResult } from '../../../shared/schemas/search.js';

export type SearchKind = (typeof SEARCH_KINDS)[number];

export const SEARCH_LIMIT_DEFAULT = 20;
/** Text file contents are indexed up to this size (the inline file limit). */
export const SEARCH_FILE_TEXT_MAX = 256 * 1024;

/** One hit, as the tool and routes return it (shared/schemas/search.ts). */
export type SearchResult = z.output<typeof searchResult>;

/** A page of hits, best first (shared/schemas/search.ts `searchOutput`). */
export type SearchPage = z.output<typeof searchOutput>;

export interface SearchQuery {
  rooms: string[];
  query: string;
  kinds?: readonly SearchKind[];
  limit?: number;
  cursor?: string;
}

const isOffsetKey = (k: unknown[]): k is [number] => k.length === 1 && Number.isSafeInteger(k[0]) && (k[0] as number) >= 0 && (k[0] as number) <= 100_000;

/** What an index entry points at, if the caller may see it (a file with no ready version is nobody's result yet). */
function sourceOf(db: Db, rowid: number, kind: string): { id: string; seq?: number; task_id?: string; title?: string; path?: string; name?: string } | undefined {
  const src = Math.floor((rowid >= OTHER_BASE ? rowid - OTHER_BASE : rowid) / 8);
  switch (kind) {
    case 'message': {
      const m = stmt(db, 'SELECT id, seq FROM messages WHERE rowid = ?').get(src) as { id: string; seq: number } | undefined;
      return m && { id: m.id, seq: m.seq };
    }
    case 'task': {
      const t = stmt(db, 'SELECT id, title FROM tasks WHERE rowid = ?').get(src) as { id: string; title: string } | undefined;
      return t && { id: t.id, task_id: t.id, title: t.title };
    }
    case 'decision': {
      const d = stmt(db, 'SELECT id FROM room_decisions WHERE seq = ?').get(src) as { id: string } | undefined;
      return d && { id: d.id };
    }
    case 'file': {
      const f = stmt(
        db,
        `SELECT f.id, f.path FROM files f WHERE f.rowid = ? AND EXISTS (SELECT 1 FROM file_versions v WHERE v.file_id = f.id AND v.status = 'ready')`,
      ).get(src) as { id: string; path: string } | undefined;
      return f && { id: f.id, path: f.path, name: f.path.slice(f.path.lastIndexOf('/') + 1) };
    }
    default:
      return undefined;
  }
}

/**
 * Each of the two rowid ranges (messages; tasks, decisions and files) is ranked over its newest
 * this many matches: reading and scoring a match costs, and this keeps a query's cost bounded
 * at any size of history. A query with fewer matches is ranked over all of them. 100, not 200:
 * at 1,000,000 messages the window's reads and scoring were most of a common two-word query's
 * cost (p99 of the synchronous work 12-15 ms with 200, 9-10 ms with 100; docs/performance.md).
 */
export const RANK_WINDOW = 100;

const MAX_ROWID = Number.MAX_SAFE_INTEGER;
const FILTER = `search_fts MATCH @q AND rowid >= @lo AND rowid < @hi
  AND room_id IN (SELECT value FROM json_each(@rooms)) AND (@kinds IS NULL OR kind IN (SELECT value FROM json_each(@kinds)))`;

interface Hit {
  rowid: number;
  kind: SearchKind;
  room_id: string;
  created_at: number;
  title: string;
  body: string;
  score: number;
}

/**
 * Ranked full-text search in the given rooms (the caller checked membership): per rowid range,
 * the newest RANK_WINDOW matches (FTS5 walks its posting lists backwards and stops), scored
 * with BM25 (query.ts), best first; then a snippet for each entry of the page only. The cursor
 * is an offset into the ranking: a page boundary can shift if the room changes between pages.
 */
/**
 * A query's time budget: its inputs are bounded (words, terms, the rank window, the scored and
 * snippet characters), so it normally takes a few milliseconds; a query still running past
 * this between two of its stages stops with UNAVAILABLE `search_timeout` rather than go on.
 * better-sqlite3 has no progress handler, so a single statement is bounded by LIMIT instead.
 */
export const SEARCH_BUDGET_MS = 500;

function withinBudget(started: number): void {
  if (performance.now() - started > SEARCH_BUDGET_MS) {
    throw new AppError('UNAVAILABLE', `the search took over ${SEARCH_BUDGET_MS} ms and was stopped; search for fewer or rarer words`, { reason: 'search_timeout' });
  }
}

export function search(db: Db, q: SearchQuery): SearchPage {
  const started = performance.now();
  const fts = toFtsQuery(q.query);
  const limit = Math.max(1, Math.min(SEARCH_LIMIT_MAX, q.limit ?? SEARCH_LIMIT_DEFAULT));
  const offset = q.cursor === undefined ? 0 : decodeCursor(q.cursor, isOffsetKey)[0];
  if (!fts || !q.rooms.length) return { results: [], next_cursor: null };
  // Messages sent before this search are found: index the pending ones first (search/indexer.ts).
  indexPendingMessages(db, SEARCH_FLUSH_BATCHES);
  const kinds = q.kinds?.length ? JSON.stringify(q.kinds) : null;
  const rooms = JSON.stringify(q.rooms);
  const ranges: Array<[number, number]> = [];
  if (!q.kinds?.length || q.kinds.includes('message')) ranges.push([0, OTHER_BASE]);
  if (!q.kinds?.length || q.kinds.some((k) => k !== 'message')) ranges.push([OTHER_BASE, MAX_ROWID]);
  const hits: Hit[] = [];
  // Only the scored part of each body is read: a 256 KiB file costs what its first SCORE_CHARS cost.
  const window = (match: string, lo: number, hi: number) =>
    stmt(db, `SELECT rowid, kind, room_id, created_at, title, substr(body, 1, ${SCORE_CHARS}) AS body FROM search_fts WHERE ${FILTER} ORDER BY rowid DESC LIMIT ${RANK_WINDOW}`).all({
      q: match,
      lo,
      hi,
      rooms,
      kinds,
    }) as Hit[];
  // The last word also as a prefix ("smok" finds smoke), only where the words as typed did not
  // fill the rank window: a prefix query merges the postings of every word it expands to, where
  // the words as typed are read newest first and stop at the window (docs/search.md).
  const prefix = toPrefixQuery(q.query);
  let prefixed = false;
  for (const [lo, hi] of ranges) {
    let found = window(fts, lo, hi);
    withinBudget(started);
    if (prefix && found.length < RANK_WINDOW) {
      found = window(prefix, lo, hi);
      prefixed = true;
      withinBudget(started);
    }
    hits.push(...found);
  }
  const words = queryWords(q.query);
  const scores = bm25Scores(hits, words, prefixed);
  hits.forEach((h, i) => (h.score = scores[i]!));
  withinBudget(started);
  hits.sort((a, b) => b.score - a.score || b.rowid - a.rowid);
  const page = hits.slice(offset, offset + limit);
  const results: SearchResult[] = [];
  const scanChars = snippetScanChars(page.length);
  for (const r of page) {
    const src = sourceOf(db, r.rowid, r.kind);
    if (!src) continue;
    // The hit's own text, on a bounded window (query.ts makeSnippet), never FTS5 snippet() over the whole entry.
    const { snippet, highlights } = makeSnippet(r, words, scanChars, prefixed);
    results.push({
      kind: r.kind,
      room: r.room_id,
      snippet,
      highlights,
      rank: Math.round(r.score * 1e4) / 1e4,
      created_at: new Date(r.created_at).toISOString(),
      ...src,
    });
  }
  return { results, next_cursor: hits.length > offset + limit ? encodeCursor([offset + limit]) : null };
}

/** The rooms a human is in (GET /v1/search searches all of them). */
export function roomsOfOwner(db: Db, ownerId: string): string[] {
  return roomIdsOfOwner(db, ownerId);
}

/** Is this text worth indexing as a file's contents: small enough and valid UTF-8 without NULs? */
export function indexableText(bytes: Buffer): string | undefined {
  if (bytes.length > SEARCH_FILE_TEXT_MAX) return undefined;
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
    return text.includes('\u0000') ? undefined : text;
  } catch {
    return undefined;
  }
}

/** Writes a file's text contents into its index entry (inside the writer's transaction); undefined clears them. */
export function indexFileText(db: Db, fileId: string, text: string | undefined): void {
  stmt(db, 'UPDATE search_fts SET body = ? WHERE rowid = (SELECT ? + rowid * 8 + 4 FROM files WHERE id = ?)').run(text ?? '', OTHER_BASE, fileId);
}
