/**
 * The pure half of search: user input to an FTS5 query, and FTS5 snippets to plain text with
 * highlight offsets. No SQL here, so both are tested (and fuzzed) without a database.
 */

/** At most this many words of a query are used; the rest is ignored. */
export const MAX_QUERY_WORDS = 32;
/** Query text beyond this many characters is ignored. */
export const MAX_QUERY_CHARS = 1000;

/** Snippet markers: control characters that never survive into the text we return. */
export const HL_START = '\u0002';
export const HL_END = '\u0003';

// Control and format characters (and lone surrogates, which SQLite would turn into U+FFFD) carry no words.
const NOISE = /[\p{Cc}\p{Cf}\p{Cs}]/gu;
// A word worth asking for holds at least one letter, digit, mark, symbol or private-use character.
const WORDY = /[\p{L}\p{N}\p{M}\p{S}\p{Co}]/u;

/**
 * Plain words, never FTS5 syntax: each whitespace-separated word becomes a quoted string
 * (a `"` inside doubled), so AND/OR/NOT/NEAR, `*`, `^`, `:` and parentheses are just text, and
 * every word must appear (implicit AND). The tokenizer then splits a word like cart_total into
 * its tokens, as it did when indexing. Returns undefined when nothing searchable is left.
 */
export function toFtsQuery(input: string): string | undefined {
  const words = queryWords(input);
  if (!words.length) return undefined;
  return words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
}

/** The words of a query that are searched for (see toFtsQuery). */
export function queryWords(input: string): string[] {
  return input
    .slice(0, MAX_QUERY_CHARS)
    .replace(NOISE, ' ')
    .split(/\s+/u)
    .filter((w) => w.length > 0 && WORDY.test(w))
    .slice(0, MAX_QUERY_WORDS);
}

/** Text beyond this many characters is not scored (a 256 KiB file is ranked by its beginning). */
const SCORE_CHARS = 20_000;
const SEPARATOR = /[\p{Z}\p{P}\p{C}]+/u;

/**
 * Tokens as the index's tokenizer (unicode61, remove_diacritics 2) makes them, near enough to
 * count term frequencies: case and diacritics folded, split at spaces, punctuation and controls.
 */
export function tokens(text: string): string[] {
  return text
    .slice(0, SCORE_CHARS)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(SEPARATOR)
    .filter(Boolean);
}

function phraseCount(toks: string[], phrase: string[]): number {
  if (!phrase.length) return 0;
  let n = 0;
  for (let i = 0; i + phrase.length <= toks.length; i++) {
    let j = 0;
    while (j < phrase.length && toks[i + j] === phrase[j]) j++;
    if (j === phrase.length) n++;
  }
  return n;
}

/**
 * BM25 (k1 1.2, b 0.75) with titles weighing 4 and bodies 1, over a set of entries that all
 * match every phrase (the query is an AND). Every result holds every term, so the inverse
 * document frequency is taken as equal for all terms: computing it would walk each term's
 * whole posting list, the one cost that grows with the history (bm25() pays it per query).
 * Returns scores in the order given, higher is more relevant.
 */
export function bm25Scores(entries: ReadonlyArray<{ title: string; body: string }>, words: readonly string[]): number[] {
  const phrases = words.map(tokens).filter((p) => p.length > 0);
  const toks = entries.map((e) => ({ t: tokens(e.title), b: tokens(e.body) }));
  const avg = (f: (x: { t: string[]; b: string[] }) => number) => Math.max(1, toks.reduce((n, x) => n + f(x), 0) / Math.max(1, toks.length));
  const avgT = avg((x) => x.t.length);
  const avgB = avg((x) => x.b.length);
  const sat = (f: number, dl: number, avgdl: number) => (f === 0 ? 0 : (f * 2.2) / (f + 1.2 * (0.25 + (0.75 * dl) / avgdl)));
  return toks.map((x) => phrases.reduce((s, p) => s + 4 * sat(phraseCount(x.t, p), x.t.length, avgT) + sat(phraseCount(x.b, p), x.b.length, avgB), 0));
}

/**
 * A snippet with markers to `{snippet, highlights}`: plain text, and [start, end) offsets in
 * UTF-16 code units (what JavaScript's String indexes) of each highlighted run.
 */
export function parseSnippet(marked: string): { snippet: string; highlights: Array<[number, number]> } {
  let out = '';
  const highlights: Array<[number, number]> = [];
  let open = -1;
  for (const ch of marked) {
    if (ch === HL_START) {
      if (open < 0) open = out.length;
    } else if (ch === HL_END) {
      if (open >= 0 && out.length > open) highlights.push([open, out.length]);
      open = -1;
    } else {
      out += ch;
    }
  }
  if (open >= 0 && out.length > open) highlights.push([open, out.length]);
  return { snippet: out, highlights };
}
