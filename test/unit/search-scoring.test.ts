// Search scoring (docs/search.md "Bounds"): ASCII text is scored by a pass without a string per
// token (query.ts asciiStats), other text by tokens + phrase counts. Both must give the same
// scores: a no-break space (a separator, so no token) appended to every title and body sends
// the same text down the general path. And one request's entries share SCORE_TOTAL_CHARS.
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { bm25Scores, scoredChars, tokens, SCORE_CHARS, SCORE_MIN_CHARS, SCORE_TOTAL_CHARS } from '../../src-main/core/search/query.js';

const piece = fc.constantFrom('cart', 'total', 'Cart', 'CART_total', 'cart-total', 'x', '$', '+a', 'a+', '-', '_', ' ', '  ', '.', ',', '\n', '"', "'", 'tot', 'al', 'w1', 'w1x');
const text = (max: number) => fc.array(piece, { maxLength: max }).map((p) => p.join(''));
const entry = fc.record({ title: text(4), body: text(60) });
const general = (e: { title: string; body: string }) => ({ title: `${e.title}\u00a0`, body: `${e.body}\u00a0` });

describe('search scoring', () => {
  it('ASCII text scores as the general (Unicode) path scores it', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 12 }), fc.array(text(3), { minLength: 1, maxLength: 4 }), (entries, words) => {
        const ascii = bm25Scores(entries, words);
        const unicode = bm25Scores(entries.map(general), words);
        expect(ascii).toHaveLength(entries.length);
        ascii.forEach((s, i) => expect(s).toBeCloseTo(unicode[i]!, 9));
      }),
      { numRuns: 500 },
    );
  });

  it('a phrase counts where its tokens follow one another, whole tokens only', () => {
    const [both, apart, partial, none] = bm25Scores(
      [
        { title: '', body: 'fix the cart_total spec' },
        { title: '', body: 'the cart is in total disarray' },
        { title: '', body: 'carts totals cart_totals' },
        { title: '', body: 'nothing here' },
      ],
      ['cart_total'],
    );
    expect(both).toBeGreaterThan(0);
    expect([apart, partial, none]).toEqual([0, 0, 0]);
    expect(tokens('Cart_Total')).toEqual(['cart', 'total']);
  });

  it('the entries of one request share SCORE_TOTAL_CHARS (a few get SCORE_CHARS each)', () => {
    for (const n of [1, 10, 25, 26, 100, 200, 1000]) {
      const chars = scoredChars(n);
      expect(chars).toBeLessThanOrEqual(SCORE_CHARS);
      expect(chars).toBeGreaterThanOrEqual(SCORE_MIN_CHARS);
      if (chars > SCORE_MIN_CHARS) expect(chars * n).toBeLessThanOrEqual(SCORE_TOTAL_CHARS);
    }
    expect(scoredChars(25)).toBe(SCORE_CHARS);
    expect(scoredChars(100)).toBe(1000);
    // Past its share, an entry's text does not count: the same match beyond 1,000 characters scores 0 among 100 entries.
    const late = { title: '', body: `${'filler '.repeat(200)}zebra` };
    const many = Array.from({ length: 100 }, () => late);
    expect(bm25Scores([late], ['zebra'])[0]).toBeGreaterThan(0);
    expect(bm25Scores(many, ['zebra'])[0]).toBe(0);
  });
});
