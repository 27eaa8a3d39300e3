/**
 * Full-text search (issue 15, item 5): the `search` tool and GET /v1/rooms/:id/search and
 * /v1/search, over a real server and SQLite FTS5. Ranking, room and owner isolation, updates and
 * deletes, unicode, highlights, paging, and adversarial query strings (never a 500).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { parseSnippet, toFtsQuery } from '../../src-main/core/search/query.js';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migration0009 } from '../../src-main/core/db/migrations/0009-search.js';
import { search } from '../../src-main/core/search/service.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/** encodeURIComponent, except that a lone surrogate goes out as its (invalid) UTF-8 bytes. */
const uriOf = (q: string) => {
  try {
    return encodeURIComponent(q);
  } catch {
    return q.replace(/[\s\S]/gu, (ch) => (/[\ud800-\udfff]/.test(ch) ? '%ED%A0%80' : encodeURIComponent(ch)));
  }
};
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

describe('search', () => {
  let s: TestApp;
  let roomA: string;
  let roomB: string;
  let roomC: string;
  let a: TestAgent;
  let ca: AppClient;
  let cc: AppClient;
  let bob: { owner_id: string; token: string };

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    roomA = await s.room('Alpha');
    roomB = await s.room('Beta');
    a = await s.agent('Seeker');
    const b = await s.agent('Other');
    await s.join(roomA, a.plate);
    await s.join(roomB, b.plate);
    ca = await s.connect(a.credential);
    const cb = await s.connect(b.credential);
    // Another owner's room with the very same words.
    bob = await s.owner('Bob');
    roomC = await s.room('Gamma', bob.token);
    const bobAgent = await s.agent('Bobbot', { token: bob.token });
    await s.join(roomC, bobAgent.plate, bob.token);
    cc = await s.connect(bobAgent.credential);

    await ok(ca, 'send_message', { room: roomA, body: 'the flaky cart_total spec failed again on CI' });
    await ok(ca, 'send_message', { room: roomA, body: 'lunch is at noon' });
    await ok(ca, 'send_message', { room: roomA, body: 'We met at the café, a naïve plan: Ünïcödé ✓ 日本語 テスト' });
    await ok(ca, 'create_task', { room: roomA, title: 'Fix flaky cart_total spec', definition_of_done: 'green', assignee: a.plate, detail: 'retry logic' });
    await ok(ca, 'write_file', { room: roomA, path: 'notes/cart.md', content: 'cart_total rounding: banker’s rounding explained' });
    expect((await s.api('POST', `/v1/rooms/${roomA}/decisions`, { text: 'we keep the flaky spec quarantined until Friday' })).status).toBe(201);
    await ok(cb, 'send_message', { room: roomB, body: 'flaky cart_total in Beta' });
    await ok(cc, 'send_message', { room: roomC, body: 'flaky cart_total secret of Bob' });
  });
  afterAll(async () => s.stop());

  it('finds every kind, ranked (a title match first), with plain snippets and highlights', async () => {
    const r = await ok(ca, 'search', { room: roomA, query: 'flaky cart_total' });
    const kinds = r.results.map((x: any) => x.kind);
    expect(kinds[0]).toBe('task');
    expect(new Set(kinds)).toEqual(new Set(['task', 'message']));
    for (const x of r.results) {
      expect(x.room).toBe(roomA);
      expect(x.snippet).not.toMatch(/[<>\u0002\u0003]/);
      expect(x.highlights.length).toBeGreaterThan(0);
      // A quoted word the tokenizer splits (cart_total) is one phrase: highlighted as one run.
      for (const [st, en] of x.highlights) expect(['flaky', 'cart_total', 'cart', 'total']).toContain(fold(x.snippet.slice(st, en)));
      expect(x.rank).toEqual(expect.any(Number));
    }
    const ranks = r.results.map((x: any) => x.rank);
    expect([...ranks].sort((p: number, q: number) => q - p)).toEqual(ranks);
    const msg = r.results.find((x: any) => x.kind === 'message');
    expect(msg).toMatchObject({ id: expect.stringMatching(/^msg_/), seq: 1 });
    expect(r.results.find((x: any) => x.kind === 'task')).toMatchObject({ task_id: expect.stringMatching(/^task_/) });
    const dec = await ok(ca, 'search', { room: roomA, query: 'quarantined Friday', kinds: ['decision'] });
    expect(dec.results).toHaveLength(1);
    expect(dec.results[0].kind).toBe('decision');
    const file = await ok(ca, 'search', { room: roomA, query: 'rounding' });
    expect(file.results).toEqual([expect.objectContaining({ kind: 'file', path: 'notes/cart.md', id: expect.stringMatching(/^file_/) })]);
    expect((await ok(ca, 'search', { room: roomA, query: 'notes cart' })).results[0]).toMatchObject({ kind: 'file' });
  });

  it('room isolation: another room and another owner never appear; non-members are refused', async () => {
    const all = await s.api('GET', `/v1/search?q=${encodeURIComponent('flaky cart_total')}`);
    expect(all.status).toBe(200);
    const rooms = new Set(all.body.results.map((x: any) => x.room));
    expect(rooms).toEqual(new Set([roomA, roomB]));
    expect(JSON.stringify(all.body)).not.toContain('Bob');
    const bobs = await s.api('GET', `/v1/search?q=flaky`, undefined, bob.token);
    expect(new Set(bobs.body.results.map((x: any) => x.room))).toEqual(new Set([roomC]));
    expect((await s.api('GET', `/v1/rooms/${roomA}/search?q=flaky`, undefined, bob.token)).status).toBe(404);
    const one = await s.api('GET', `/v1/rooms/${roomB}/search?q=flaky`);
    expect(one.body.results.map((x: any) => x.room)).toEqual([roomB]);
    expect((await fails(ca, 'search', { room: roomB, query: 'flaky' })).code).toBe('NOT_MEMBER');
    expect((await fails(cc, 'search', { room: roomA, query: 'flaky' })).code).toBe('NOT_MEMBER');
    const inA = await ok(ca, 'search', { room: roomA, query: 'Beta' });
    expect(inA.results).toEqual([]);
  });

  it('updates and deletes are reflected at once', async () => {
    const t = await ok(ca, 'create_task', { room: roomA, title: 'Polish the zeppelin', definition_of_done: 'shiny', assignee: a.plate });
    expect((await ok(ca, 'search', { room: roomA, query: 'zeppelin' })).results).toHaveLength(1);
    await ok(ca, 'update_task', { task_id: t.task_id, title: 'Polish the dirigible' });
    expect((await ok(ca, 'search', { room: roomA, query: 'zeppelin' })).results).toHaveLength(0);
    expect((await ok(ca, 'search', { room: roomA, query: 'dirigible' })).results[0]).toMatchObject({ task_id: t.task_id });
    // Handoff notes are searchable once the task is done.
    await ok(ca, 'claim_task', { task_id: t.task_id });
    await ok(ca, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'the hangar key is under the mat' });
    expect((await ok(ca, 'search', { room: roomA, query: 'hangar key' })).results[0]).toMatchObject({ task_id: t.task_id });
    // A new file version replaces the indexed contents; a delete removes the file.
    await ok(ca, 'write_file', { room: roomA, path: 'notes/cart.md', content: 'now about marmalade' });
    expect((await ok(ca, 'search', { room: roomA, query: 'rounding' })).results).toHaveLength(0);
    expect((await ok(ca, 'search', { room: roomA, query: 'marmalade' })).results).toHaveLength(1);
    await ok(ca, 'delete_file', { room: roomA, path: 'notes/cart.md' });
    expect((await ok(ca, 'search', { room: roomA, query: 'marmalade' })).results).toHaveLength(0);
    expect((await ok(ca, 'search', { room: roomA, query: 'notes cart' })).results).toHaveLength(0);
  });

  it('unicode: diacritics and case fold both ways, highlights are UTF-16 offsets', async () => {
    for (const q of ['cafe', 'CAFÉ', 'naive', 'unicode', 'ÜNÏCÖDÉ', '日本語']) {
      const r = await ok(ca, 'search', { room: roomA, query: q });
      expect(r.results.length, q).toBe(1);
      const x = r.results[0];
      const [st, en] = x.highlights[0];
      expect(fold(x.snippet.slice(st, en))).toBe(fold(q));
    }
  });

  it('pages with limit and cursor to the last page', async () => {
    for (let i = 0; i < 7; i++) await ok(ca, 'send_message', { room: roomA, body: `paging walrus number ${i}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const r = (await s.api('GET', `/v1/rooms/${roomA}/search?q=walrus&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).body;
      seen.push(...r.results.map((x: any) => x.id));
      pages++;
      cursor = r.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(7);
    expect((await fails(ca, 'search', { room: roomA, query: 'walrus', cursor: 'nope!' })).code).toBe('INVALID_ARGUMENT');
  });

  it('adversarial queries: any string is plain words, never a 500 or a syntax error', async () => {
    const nasty = ['"', '""', 'AND', 'OR NOT', 'NEAR(a b)', 'a*', '*', '^start', 'title:flaky', '(', ')', '-flaky', '+', 'a"b', '\u0000flaky', '\ud800', '🙂', '', '   ', 'x'.repeat(5000), '\u0002x\u0003'];
    for (const q of nasty) {
      const r = await s.api('GET', `/v1/rooms/${roomA}/search?q=${uriOf(q.slice(0, 1000))}`);
      expect(r.status, JSON.stringify(q)).toBe(200);
      expect(Array.isArray(r.body.results)).toBe(true);
      const m = await ca.callTool({ name: 'search', arguments: { room: roomA, query: q.slice(0, 1000) } });
      expect(m.isError, JSON.stringify(q)).toBeFalsy();
    }
    // Operators are words: "flaky OR lunch" needs the word "or", so it finds nothing; "flaky" alone does.
    expect((await ok(ca, 'search', { room: roomA, query: 'flaky' })).results.length).toBeGreaterThan(0);
    expect((await ok(ca, 'search', { room: roomA, query: 'flaky OR lunch' })).results).toEqual([]);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 60 }), async (q) => {
        const r = await s.api('GET', `/v1/search?q=${uriOf(q)}`);
        expect(r.status).toBe(200);
      }),
      { numRuns: 60 },
    );
    // Straight into the service (no HTTP: a long synchronous run would outlast keep-alive sockets).
    const db = s.running.core.db;
    await fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (q) => {
        // Too many words or terms is a clear INVALID_ARGUMENT (docs/search.md "Bounds"), never anything else.
        let r;
        try {
          r = search(db, { rooms: [roomA], query: q });
        } catch (e) {
          expect((e as { code?: string }).code).toBe('INVALID_ARGUMENT');
          return;
        }
        expect(Array.isArray(r.results)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('search: query and snippet helpers', () => {
  it('quotes every word, drops words without letters or digits, and gives up on empty input', () => {
    expect(toFtsQuery('flaky cart_total')).toBe('"flaky" "cart_total"');
    expect(toFtsQuery('a"b NEAR(')).toBe('"a""b" "NEAR("');
    expect(toFtsQuery(' ( ) - ')).toBeUndefined();
    expect(toFtsQuery('')).toBeUndefined();
  });
  it('turns markers into offsets and strips them from the text', () => {
    expect(parseSnippet('a \u0002café\u0003 b \u0002x\u0003')).toEqual({ snippet: 'a café b x', highlights: [[2, 6], [9, 10]] });
    expect(parseSnippet('🙂 \u0002ok\u0003')).toEqual({ snippet: '🙂 ok', highlights: [[3, 5]] });
  });
});

describe('search: the migration indexes an existing home', () => {
  it('rows written before the migration are found after it, with progress reported', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    expect(migrate(db, migration0009.version - 1)).toBe(migration0009.version - 1);
    const now = Date.now();
    db.prepare("INSERT INTO owners (id, name, slug, plate_prefix, token_hash, is_primary, created_at) VALUES ('own_1', 'Ada', 'ada', 'ADA', 'h1', 1, ?)").run(now);
    db.prepare("INSERT INTO agents (id, plate, owner_id, name, slug, scopes, created_at) VALUES ('agt_1', 'ADA-AGT-ABCDEF', 'own_1', 'Al', 'al', 31, ?)").run(now);
    db.prepare("INSERT INTO rooms (id, name, created_by, created_at) VALUES ('room_1', 'Main', 'own_1', ?)").run(now);
    const msg = db.prepare("INSERT INTO messages (id, room_id, seq, sender_kind, sender_plate, sender_owner_id, body, created_at) VALUES (?, 'room_1', ?, 'agent', 'ADA-AGT-ABCDEF', 'own_1', ?, ?)");
    for (let i = 1; i <= 45_000; i++) msg.run(`msg_${i}`, i, i === 44_321 ? 'the needle in the haystack' : `hay ${i}`, now);
    db.prepare(
      "INSERT INTO tasks (id, room_id, title, definition_of_done, assignee, consent_state, created_by_kind, created_by_owner, created_at, updated_at) VALUES ('task_1', 'room_1', 'old needle task', 'd', 'ADA-AGT-ABCDEF', 'auto', 'agent', 'own_1', ?, ?)",
    ).run(now, now);
    const calls: Array<[number, number]> = [];
    db.transaction(() => {
      migration0009.up(db, (done, total) => calls.push([done, total]));
      db.pragma(`user_version = ${migration0009.version}`);
    }).immediate();
    expect(calls.length).toBeGreaterThan(1);
    expect(calls[calls.length - 1]).toEqual([45_001, 45_001]);
    // The later migrations keep what 0009 indexed (0011 marks every message here as indexed).
    expect(migrate(db)).toBeGreaterThanOrEqual(migration0009.version);
    const r = search(db, { rooms: ['room_1'], query: 'needle' });
    expect(r.results.map((x) => x.id).sort()).toEqual(['msg_44321', 'task_1']);
    db.close();
  });
});
