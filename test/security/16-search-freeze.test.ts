// Issue 26 F2: FTS5 snippet() cost grew with query words × entry length: 8 words over 20k-character
// messages froze the server 3 s, 32 words 51 s, for any member with READ. The attack: a member fills
// a room with long messages holding every word, then searches for many of them, in the in-process
// app (test/helpers/app.ts) while test/helpers/loop-probe.ts measures how long the event loop was
// held and how long a concurrent GET /healthz sent as the search started waited (both printed, for
// the tool call and the /v1 route each). What is asserted is the work: the statements a search runs on search_fts never
// call snippet() or highlight() (the cost that grew), read at most RANK_WINDOW rows per range and at
// most SCORE_CHARS of each body, and the scoring and snippets of one request share SCORE_TOTAL_CHARS
// and SNIPPET_TOTAL_CHARS (query.ts); the only time bound is LOOP_HELD_MAX_MS. Also: too many words or
// terms are a clear INVALID_ARGUMENT, and task and file hits carry their own snippet, title, path and name.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type Database from 'better-sqlite3';
import { ok, fails } from '../helpers/server.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { agentInRoom } from '../helpers/seat.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer, LOOP_HELD_MAX_MS } from '../helpers/loop-probe.js';
import { RANK_WINDOW } from '../../src-main/core/search/service.js';
import { SCORE_CHARS, SCORE_TOTAL_CHARS, SNIPPET_SCAN_CHARS, SNIPPET_TOTAL_CHARS, scoredChars, snippetScanChars } from '../../src-main/core/search/query.js';

/** What the statements on search_fts read since the last reset: their SQL and the rows they returned. */
interface FtsRead {
  sql: string;
  rows: Array<Record<string, unknown>>;
}
let reads: FtsRead[] = [];

/** Records every statement prepared on `db` that reads search_fts (statements are prepared once: call before any search). */
function watchFts(db: Database.Database): void {
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    const st = prepare(sql);
    if (!/FROM\s+search_fts\b/i.test(sql) || !st.reader) return st;
    const all = st.all.bind(st);
    const get = st.get.bind(st);
    st.all = ((...args: unknown[]) => {
      const rows = all(...args) as Array<Record<string, unknown>>;
      reads.push({ sql, rows });
      return rows;
    }) as typeof st.all;
    st.get = ((...args: unknown[]) => {
      const row = get(...args) as Record<string, unknown> | undefined;
      reads.push({ sql, rows: row ? [row] : [] });
      return row;
    }) as typeof st.get;
    return st;
  }) as typeof db.prepare;
}

/** The search's work was bounded: no snippet()/highlight() over whole entries, at most RANK_WINDOW rows a statement, at most SCORE_CHARS of a body. */
function boundedReads(): number {
  expect(reads.length).toBeGreaterThan(0);
  let rows = 0;
  for (const r of reads) {
    expect(r.sql).not.toMatch(/\b(snippet|highlight)\s*\(/i);
    expect(r.rows.length).toBeLessThanOrEqual(RANK_WINDOW);
    for (const row of r.rows) if (typeof row.body === 'string') expect(row.body.length).toBeLessThanOrEqual(SCORE_CHARS);
    rows += r.rows.length;
  }
  return rows;
}

const WORDS = Array.from({ length: 32 }, (_x, i) => `w${i}x${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`);
const LONG = WORDS.join(' ').repeat(Math.ceil(20_000 / (WORDS.join(' ').length + 1))).slice(0, 20_000);

describe('issue 26 F2: search cannot stall the server', () => {
  let s: TestApp;
  let c: AppClient;
  let room: string;
  let plate: string;
  let health: Awaited<ReturnType<typeof startHealthServer>>;

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    health = await startHealthServer();
    watchFts(s.core.db);
    ({ agent: { plate }, room, c } = await agentInRoom(s, 'Searcher', 'Long messages'));
    for (let i = 0; i < 100; i++) await ok(c, 'send_message', { room, body: `${i} ${LONG}` });
  }, 120_000);
  afterAll(async () => {
    await health?.close();
    await s?.stop();
  });

  it.each([8, 16])('%i words over 100 messages of 20,000 characters (MCP and /v1)', async (n) => {
    const query = WORDS.slice(0, n).join(' ');
    reads = [];
    const viaTool = await probeLoopAndRequest(() => ok<any>(c, 'search', { room, query, limit: 100 }), health.url);
    const viaApi = await probeLoopAndRequest(() => s.api('GET', `/v1/rooms/${room}/search?q=${encodeURIComponent(query)}&limit=100`), health.url);
    const rows = boundedReads();
    reportWithRequest(`F2 search tool, ${n} words x 100 messages of 20k chars (limit 100)`, viaTool);
    reportWithRequest(`F2 search route, ${n} words x 100 messages of 20k chars (limit 100; ${rows} rows read by both)`, viaApi);
    for (const p of [viaTool, viaApi]) {
      expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
      expect(p.request.status).toBe(200);
    }
    expect(viaTool.result.results.length).toBe(100);
    expect(viaApi.result.status).toBe(200);
    expect(viaApi.result.body.results.map((r: any) => r.id)).toEqual(viaTool.result.results.map((r: any) => r.id));
    const hit = viaTool.result.results[0];
    expect(hit.highlights.length).toBeGreaterThan(0);
    expect(hit.snippet.length).toBeLessThan(400);
  });

  it('one request scores and snips a bounded number of characters, however many long entries it ranks', async () => {
    // 100 entries share SCORE_TOTAL_CHARS; a page of 100 hits shares SNIPPET_TOTAL_CHARS; a few entries get the full windows.
    expect(scoredChars(100) * 100).toBeLessThanOrEqual(SCORE_TOTAL_CHARS);
    expect(scoredChars(200) * 200).toBeLessThanOrEqual(SCORE_TOTAL_CHARS);
    expect(scoredChars(20)).toBe(SCORE_CHARS);
    expect(snippetScanChars(100) * 100).toBeLessThanOrEqual(SNIPPET_TOTAL_CHARS);
    expect(snippetScanChars(20)).toBe(SNIPPET_SCAN_CHARS);
    // The worst the limits allow for the snippets: each hit's words only past its scan window (the
    // snippet walks its whole window and finds nothing). 100 such messages, 16 words, limit 100.
    const far = await s.room('Far words');
    await s.join(far, plate);
    const words = WORDS.slice(0, 16);
    for (let i = 0; i < 100; i++) await ok(c, 'send_message', { room: far, body: `${'filler '.repeat(3000)}${words.join(' ')} ${i}` });
    reads = [];
    const p = await probeLoopAndRequest(() => ok<any>(c, 'search', { room: far, query: words.join(' '), limit: 100 }), health.url);
    boundedReads();
    reportWithRequest('F2 search tool, 16 words found only past 21,000 characters of 100 messages (limit 100)', p);
    expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
    expect(p.request.status).toBe(200);
    expect(p.result.results).toHaveLength(100);
    // No match inside the window: the snippet is the entry's beginning, without highlights.
    expect(p.result.results[0].snippet).toMatch(/^filler filler/);
    expect(p.result.results[0].highlights).toEqual([]);
  });

  it('32 words (or a word of many terms) is a clear INVALID_ARGUMENT, not a long wait', async () => {
    reads = [];
    const p = await probeLoopAndRequest(() => fails(c, 'search', { room, query: WORDS.join(' ') }), health.url);
    reportWithRequest('F2 search, 32 words', p);
    expect(p.request.status).toBe(200);
    // Refused before any statement ran on the index.
    expect(reads).toEqual([]);
    expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
    expect(p.result.code).toBe('INVALID_ARGUMENT');
    expect(p.result.message).toMatch(/words/);
    const terms = await fails(c, 'search', { room, query: Array.from({ length: 40 }, (_x, i) => `t${i}`).join('_') });
    expect(terms.code).toBe('INVALID_ARGUMENT');
    const api = await s.api('GET', `/v1/search?q=${encodeURIComponent(WORDS.join(' '))}`);
    expect(api.status).toBe(400);
    expect(api.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('task and file hits carry their own snippet, and title (task) or path and name (file)', async () => {
    const t = await ok<any>(c, 'create_task', { room, title: 'Zebra crossing audit', definition_of_done: 'done', assignee: plate, detail: 'check the zebra stripes near the depot' });
    await ok(c, 'write_file', { room, path: 'notes/zebra.md', content: 'the zebra file speaks of stripes' });
    await ok(c, 'send_message', { room, body: 'a message that mentions a zebra once' });
    const r = await ok<any>(c, 'search', { room, query: 'zebra' });
    const task = r.results.find((x: any) => x.kind === 'task');
    const file = r.results.find((x: any) => x.kind === 'file');
    expect(task).toMatchObject({ title: 'Zebra crossing audit', task_id: t.task_id ?? t.task?.task_id });
    expect(task.snippet).toMatch(/zebra/i);
    expect(task.snippet).not.toMatch(/message that mentions/);
    expect(file).toMatchObject({ path: 'notes/zebra.md', name: 'zebra.md' });
    expect(file.snippet).toMatch(/zebra file speaks/);
    // /v1/search (no room) searches every room the caller is in, with the same shape.
    const all = await s.api('GET', `/v1/search?q=zebra`);
    expect(all.status).toBe(200);
    expect(all.body.results.find((x: any) => x.kind === 'file')).toMatchObject({ path: 'notes/zebra.md', name: 'zebra.md', room });
  });
});
