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
  const words = input
    .slice(0, MAX_QUERY_CHARS)
    .replace(NOISE, ' ')
    .split(/\s+/u)
    .filter((w) => w.length > 0 && WORDY.test(w))
    .slice(0, MAX_QUERY_WORDS);
  if (!words.length) return undefined;
  return words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
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
