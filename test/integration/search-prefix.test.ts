/**
 * Search matches a prefix of the last word typed ("smok" finds "smoke"), shows a hit whose text
 * fits in the snippet window whole (docs/search.md "Prefix of the last word", "Snippets"): the
 * pure query building and snippets, and GET /v1/rooms/:id/search over the in-process app.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { bm25Scores, makeSnippet, PREFIX_MIN_CHARS, SNIPPET_CHARS, toFtsQuery, toPrefixQuery } from '../../src-main/core/search/query.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

describe('the query and its snippets', () => {
  it('the last word becomes a prefix from PREFIX_MIN_CHARS characters, still as plain words', () => {
    expect(PREFIX_MIN_CHARS).toBe(3);
    expect(toPrefixQuery('smok')).toBe('"smok"*');
    expect(toPrefixQuery('flaky smok')).toBe('"flaky" "smok"*');
    expect(toPrefixQuery('cart_tot')).toBe('"cart_tot"*');
    expect(toPrefixQuery('sm')).toBeUndefined();
    expect(toPrefixQuery('cart_to')).toBeUndefined();
    expect(toPrefixQuery('"OR NEAR*')).toBe('"""OR" "NEAR*"*');
    expect(toFtsQuery('smok')).toBe('"smok"');
  });

  it('a prefix scores and highlights the words it starts, in ASCII and in other text alike', () => {
    const ascii = { title: '', body: 'the smoke test smokes, smoking' };
    const other = { title: '', body: 'the smoke test smokes, smoking é' };
    const [a] = bm25Scores([ascii], ['smok'], true);
    const [u] = bm25Scores([other], ['smok'], true);
    expect(a).toBeGreaterThan(0);
    expect(u).toBeGreaterThan(0);
    expect(bm25Scores([ascii], ['smok'])[0]).toBe(0);
    const { snippet, highlights } = makeSnippet(ascii, ['smok'], undefined, true);
    expect(highlights.map(([s, e]) => snippet.slice(s, e))).toEqual(['smoke', 'smokes', 'smoking']);
  });

  it('a text that fits in the window is shown whole, without a leading cut', () => {
    const body = 'The cart_total spec fails only under the zebra timezone again.';
    expect(body.length).toBeLessThan(SNIPPET_CHARS);
    expect(makeSnippet({ title: '', body }, ['zebra']).snippet).toBe(body);
    // A longer text near its end: the window reaches the end and starts no later than it must.
    const long = `${'word '.repeat(30)}the zebra at the end`;
    const { snippet } = makeSnippet({ title: '', body: long }, ['zebra']);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('the zebra at the end')).toBe(true);
    expect(snippet.length).toBeGreaterThan(SNIPPET_CHARS - 10);
  });
});

describe('prefix search over the route', () => {
  let s: TestApp;
  let room: string;
  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('Prefix room');
    for (const body of ['the smoke test passed', 'a smoking gun', 'small talk', 'The cart_total spec fails only under the zebra timezone again.']) {
      expect((await s.api('POST', `/v1/rooms/${room}/messages`, { body })).status).toBe(201);
    }
  });
  afterAll(async () => s?.stop());

  const find = async (q: string) => (await s.api('GET', `/v1/rooms/${room}/search?q=${encodeURIComponent(q)}`)).body.results as Array<{ snippet: string }>;

  it('"smok" finds smoke and smoking; "sm" is too short to be a prefix', async () => {
    expect((await find('smok')).map((r) => r.snippet).sort()).toEqual(['a smoking gun', 'the smoke test passed']);
    expect(await find('sm')).toEqual([]);
    expect((await find('smoke')).map((r) => r.snippet)).toEqual(['the smoke test passed']);
  });

  it('only the last word is a prefix; the others are words as typed', async () => {
    expect((await find('test smok')).map((r) => r.snippet)).toEqual(['the smoke test passed']);
    expect(await find('smok gun')).toEqual([]);
  });

  it('a 62-character message is shown whole', async () => {
    const [hit] = await find('zebra');
    expect(hit!.snippet).toBe('The cart_total spec fails only under the zebra timezone again.');
  });
});
