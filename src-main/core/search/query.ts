/**
 * The pure half of search: user input to an FTS5 query, and FTS5 snippets to plain text with
 * highlight offsets. No SQL here, so both are tested (and fuzzed) without a database.
 */

import { invalid } from '../errors/app-error.js';

/** A query of more words than this is INVALID_ARGUMENT (each word is a phrase every hit must hold). */
export const MAX_QUERY_WORDS = 16;
/** Tokens of all words together (`cart_total` is two): more is INVALID_ARGUMENT. */
export const MAX_QUERY_TERMS = 32;
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

/** The last word's last token is matched as a prefix only from this many characters: a shorter one expands to too many words. */
export const PREFIX_MIN_CHARS = 3;

/**
 * The query with its last word as a prefix (`"smok"*` finds smoke, smoking; docs/search.md
 * "Prefix of the last word"), or undefined when that word's last token is shorter than
 * PREFIX_MIN_CHARS. The search asks it only where the words as typed found fewer hits than
 * the rank window (service.ts): a prefix query merges the postings of every word it expands to.
 */
export function toPrefixQuery(input: string): string | undefined {
  const words = queryWords(input);
  const last = words.at(-1);
  if (!last || (tokens(last).at(-1)?.length ?? 0) < PREFIX_MIN_CHARS) return undefined;
  return words.map((w, i) => `"${w.replace(/"/g, '""')}"${i === words.length - 1 ? '*' : ''}`).join(' ');
}

/**
 * The words of a query that are searched for (see toFtsQuery). More than MAX_QUERY_WORDS
 * words, or MAX_QUERY_TERMS tokens in all, is INVALID_ARGUMENT: the cost of matching and
 * scoring grows with them (docs/search.md "Bounds").
 */
export function queryWords(input: string): string[] {
  const words = input
    .slice(0, MAX_QUERY_CHARS)
    .replace(NOISE, ' ')
    .split(/\s+/u)
    .filter((w) => w.length > 0 && WORDY.test(w));
  if (words.length > MAX_QUERY_WORDS) throw invalid(`a search query has at most ${MAX_QUERY_WORDS} words (this one has ${words.length}); search for the rarest few`, 'too_many_words');
  const terms = words.reduce((n, w) => n + tokens(w).length, 0);
  if (terms > MAX_QUERY_TERMS) throw invalid(`a search query has at most ${MAX_QUERY_TERMS} terms (cart_total counts two; this one has ${terms})`, 'too_many_terms');
  return words;
}

/** Text beyond this many characters is not scored (a 256 KiB file is ranked by its beginning). */
export const SCORE_CHARS = 4_000;
/**
 * Characters scored in one request, all entries together: a full window of long entries
 * shares them (100 entries: 1,000 characters each), so ranking 100 messages of 20,000
 * characters costs what 25 of them cost at SCORE_CHARS (docs/search.md "Bounds").
 */
export const SCORE_TOTAL_CHARS = 100_000;
/** However many entries share SCORE_TOTAL_CHARS, each is scored over at least this much. */
export const SCORE_MIN_CHARS = 500;
const SEPARATOR = /[\p{Z}\p{P}\p{C}]+/u;
const ASCII = /^[\x00-\x7f]*$/;
// SEPARATOR restricted to ASCII: spaces, controls and punctuation (not the symbols $+<=>^`|~, which are word characters).
const ASCII_SEPARATOR = /[\x00-\x20\x7f!"#%&'()*,\-./:;?@[\\\]_{}]+/;

/**
 * Tokens as the index's tokenizer (unicode61, remove_diacritics 2) makes them, near enough to
 * count term frequencies: case and diacritics folded, split at spaces, punctuation and controls.
 */
export function tokens(text: string, chars = SCORE_CHARS): string[] {
  const t = text.slice(0, chars);
  // Plain ASCII (the common case) skips normalisation and Unicode classes: the same split, several times faster.
  if (ASCII.test(t)) return t.toLowerCase().split(ASCII_SEPARATOR).filter(Boolean);
  return t
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(SEPARATOR)
    .filter(Boolean);
}

/**
 * How often each phrase occurs in the tokens: one pass files the positions of each phrase's
 * first token, then only those positions are compared (time ∝ tokens + occurrences × phrase).
 */
function phraseCounts(toks: string[], phrases: string[][], pre = -1): number[] {
  const starts = new Map<string, number[]>();
  for (const p of phrases) starts.set(p[0]!, []);
  for (let i = 0; i < toks.length; i++) starts.get(toks[i]!)?.push(i);
  return phrases.map((p, k) => {
    if (k === pre) return toks.reduce((n, t) => (t.startsWith(p[0]!) ? n + 1 : n), 0);
    let n = 0;
    for (const i of starts.get(p[0]!)!) {
      let j = 1;
      while (j < p.length && toks[i + j] === p[j]) j++;
      if (j === p.length) n++;
    }
    return n;
  });
}

/**
 * BM25 (k1 1.2, b 0.75) with titles weighing 4 and bodies 1, over a set of entries that all
 * match every phrase (the query is an AND). Every result holds every term, so the inverse
 * document frequency is taken as equal for all terms: computing it would walk each term's
 * whole posting list, the one cost that grows with the history (bm25() pays it per query).
 * Returns scores in the order given, higher is more relevant.
 */
export function bm25Scores(entries: ReadonlyArray<{ title: string; body: string }>, words: readonly string[], prefix = false): number[] {
  const phrases = words.map((w) => tokens(w)).filter((p) => p.length > 0);
  // The last word as a prefix (toPrefixQuery): counted as every token that starts with it, when it is one token.
  const pre = prefix && phrases.at(-1)?.length === 1 ? phrases.length - 1 : -1;
  const chars = scoredChars(entries.length);
  const stats = entries.map((e) => ({ t: textStats(e.title, chars, phrases, pre), b: textStats(e.body, chars, phrases, pre) }));
  const avg = (f: (x: { t: TextStats; b: TextStats }) => number) => Math.max(1, stats.reduce((n, x) => n + f(x), 0) / Math.max(1, stats.length));
  const avgT = avg((x) => x.t.length);
  const avgB = avg((x) => x.b.length);
  const sat = (f: number, dl: number, avgdl: number) => (f === 0 ? 0 : (f * 2.2) / (f + 1.2 * (0.25 + (0.75 * dl) / avgdl)));
  return stats.map((x) => phrases.reduce((s, _p, k) => s + 4 * sat(x.t.counts[k]!, x.t.length, avgT) + sat(x.b.counts[k]!, x.b.length, avgB), 0));
}

/** A text's length in tokens and how often each phrase occurs in it (over its first `chars` characters). */
interface TextStats {
  length: number;
  counts: number[];
}

function textStats(text: string, chars: number, phrases: string[][], pre = -1): TextStats {
  const t = text.slice(0, chars);
  if (ASCII.test(t)) return asciiStats(t.toLowerCase(), phrases, pre);
  const toks = tokens(t, chars);
  return { length: toks.length, counts: phraseCounts(toks, phrases, pre) };
}

// ASCII_SEPARATOR as a table of char codes.
const ASCII_SEP = new Uint8Array(128).map((_x, c) => (ASCII_SEPARATOR.test(String.fromCharCode(c)) ? 1 : 0));
const sepAt = (t: string, i: number) => i < 0 || i >= t.length || ASCII_SEP[t.charCodeAt(i)] === 1;

/**
 * textStats for lower-case ASCII text, the same counts as tokens + phraseCounts without making
 * a string of each token: one pass counts the tokens, and each phrase's first token is found
 * with indexOf, kept when it is a whole token and the phrase's other tokens follow it.
 */
function asciiStats(t: string, phrases: string[][], pre = -1): TextStats {
  let length = 0;
  for (let i = 0; i < t.length; i++) if (ASCII_SEP[t.charCodeAt(i)] === 0 && sepAt(t, i - 1)) length++;
  const counts = phrases.map((p, k) => {
    let n = 0;
    // A prefix: each token that starts with it (a match at a token's start, whatever follows).
    if (k === pre) {
      for (let at = t.indexOf(p[0]!); at >= 0; at = t.indexOf(p[0]!, at + 1)) if (sepAt(t, at - 1)) n++;
      return n;
    }
    for (let at = t.indexOf(p[0]!); at >= 0; at = t.indexOf(p[0]!, at + 1)) {
      if (!sepAt(t, at - 1)) continue;
      let end = at + p[0]!.length;
      let k = 1;
      for (; sepAt(t, end) && k <= p.length; k++) {
        if (k === p.length) break;
        let j = end;
        while (j < t.length && ASCII_SEP[t.charCodeAt(j)] === 1) j++;
        if (j === t.length || !t.startsWith(p[k]!, j)) break;
        end = j + p[k]!.length;
      }
      if (k === p.length && sepAt(t, end)) n++;
    }
    return n;
  });
  return { length, counts };
}

/** The characters of each entry scored when `entries` share SCORE_TOTAL_CHARS (SCORE_CHARS for up to 25 entries). */
export function scoredChars(entries: number): number {
  return Math.min(SCORE_CHARS, Math.max(SCORE_MIN_CHARS, Math.floor(SCORE_TOTAL_CHARS / Math.max(1, entries))));
}

/** Snippets are cut from this many characters of an entry at most: the cost of a hit's snippet does not grow with the entry. */
export const SNIPPET_SCAN_CHARS = 8_000;
/**
 * Characters walked for the snippets of one page, all hits together: a page of 100 hits scans
 * at most 2,000 characters of each for its first match (a default page of 20, 8,000).
 */
export const SNIPPET_TOTAL_CHARS = 200_000;

/** The characters of each hit walked for its snippet when `hits` share SNIPPET_TOTAL_CHARS. */
export function snippetScanChars(hits: number): number {
  return Math.min(SNIPPET_SCAN_CHARS, Math.max(SCORE_MIN_CHARS, Math.floor(SNIPPET_TOTAL_CHARS / Math.max(1, hits))));
}
/** Characters of a snippet, about 12 tokens of prose. */
export const SNIPPET_CHARS = 100;
const TOKEN_RUN = /[^\p{Z}\p{P}\p{C}]+/gu;
const fold = (t: string) => (/^[\x00-\x7f]*$/.test(t) ? t.toLowerCase() : t.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase());

/**
 * A snippet of an entry's own text, computed here rather than by FTS5's snippet() (whose cost
 * grew with query words × entry length): the first `scanChars` characters of the body
 * (or the title when the body has no match) are walked once for the first token of the query,
 * and a window of about SNIPPET_CHARS around it is returned with every query token in it
 * highlighted ([start, end) in UTF-16 code units), `…` where it was cut.
 */
export function makeSnippet(
  entry: { title: string; body: string },
  words: readonly string[],
  scanChars = SNIPPET_SCAN_CHARS,
  prefix = false,
): { snippet: string; highlights: Array<[number, number]> } {
  const wanted = new Set(words.flatMap((w) => tokens(w)));
  // The last word as a prefix (toPrefixQuery): any token that starts with its last token is a match.
  const pre = prefix ? tokens(words.at(-1) ?? '').at(-1) : undefined;
  const isWanted = (tok: string) => {
    const f = fold(tok);
    return wanted.has(f) || (pre !== undefined && f.startsWith(pre));
  };
  const firstMatch = (text: string): number => {
    TOKEN_RUN.lastIndex = 0;
    const slice = text.slice(0, scanChars);
    for (let m = TOKEN_RUN.exec(slice); m; m = TOKEN_RUN.exec(slice)) if (isWanted(m[0])) return m.index;
    return -1;
  };
  let text = entry.body;
  let at = firstMatch(text);
  if (at < 0 && entry.title) {
    const inTitle = firstMatch(entry.title);
    if (inTitle >= 0 || !text) [text, at] = [entry.title, Math.max(0, inTitle)];
  }
  at = Math.max(0, at);
  // A text that fits in the window is shown whole; else the window starts a third of itself before
  // the match, but never so late that it ends before the text does with room to spare.
  let start = text.length <= SNIPPET_CHARS ? 0 : Math.min(Math.max(0, at - Math.floor(SNIPPET_CHARS / 3)), text.length - SNIPPET_CHARS);
  // Start at a word boundary when the cut falls inside a word.
  if (start > 0) {
    const space = text.slice(start, at).search(/\s/u);
    if (space >= 0) start += space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_CHARS);
  if (end < text.length) {
    const back = text.slice(at, end).search(/\s\S*$/u);
    if (back > 0) end = at + back;
  }
  // Never split a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(text[start]!)) start--;
  if (end < text.length && /[\uDC00-\uDFFF]/.test(text[end]!)) end++;
  const head = start > 0 ? '…' : '';
  const body = text.slice(start, end).replace(/[\p{Cc}]/gu, ' ');
  const snippet = head + body + (end < text.length ? '…' : '');
  const highlights: Array<[number, number]> = [];
  TOKEN_RUN.lastIndex = 0;
  for (let m = TOKEN_RUN.exec(body); m; m = TOKEN_RUN.exec(body)) {
    if (isWanted(m[0])) highlights.push([head.length + m.index, head.length + m.index + m[0].length]);
  }
  return { snippet, highlights };
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
