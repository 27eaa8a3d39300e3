/**
 * Sentence counting for feedback text ("issue" 3 to 4 sentences, "recommended_fix" 3).
 *
 * A sentence ends at `.`, `!`, `?` or an ellipsis that is followed by whitespace and
 * then the start of a new sentence (a capital, a digit or an opening quote), or by the
 * end of the text. Not an end: a dot inside a token (3.14, v1.2.3, config.json), the dot
 * of an abbreviation (e.g., i.e., Dr., vs.; "No. 5" before a number), and an ellipsis
 * followed by a lower-case word (it stalled... then resumed).
 */

/** Abbreviations that never end a sentence by their dot (compared lower-case, without the final dot). */
const NEVER_ENDS = new Set([
  'e.g', 'i.e', 'cf', 'vs', 'viz', 'approx', 'incl', 'esp', 'dr', 'mr', 'mrs', 'ms', 'prof', 'sr', 'jr',
  'fig', 'figs', 'eq', 'ca', 'a.k.a', 'n.b', 'resp', 'dept', 'e.v',
]);

/** Abbreviations that do not end a sentence when a number follows ("No. 5", "p. 12", "ver. 2"). */
const BEFORE_NUMBER = new Set(['no', 'nos', 'p', 'pp', 'ver', 'rev', 'sec', 'ch', 'vol', 'art']);

const OPENERS = /["'“‘([]/;

function isUpperStart(ch: string | undefined): boolean {
  if (!ch) return false;
  if (/\d/.test(ch) || OPENERS.test(ch)) return true;
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

/** The word that carries the dot at `dotIndex` (letters, digits and inner dots before it). */
function wordBefore(text: string, dotIndex: number): string {
  let i = dotIndex;
  while (i > 0 && /[\p{L}\p{N}.]/u.test(text[i - 1]!)) i--;
  return text.slice(i, dotIndex);
}

/** Splits text into sentences (trimmed, non-empty, each holding at least one letter or digit). */
export function splitSentences(text: string): string[] {
  const s = text.replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < s.length) {
    const ch = s[i]!;
    if (ch !== '.' && ch !== '!' && ch !== '?' && ch !== '…') {
      i++;
      continue;
    }
    // The whole run of terminators (`?!`, `...`, `.…`) and the closing quotes or brackets after it.
    let j = i;
    while (j < s.length && /[.!?…]/.test(s[j]!)) j++;
    const run = s.slice(i, j);
    while (j < s.length && /["'”’)\]]/.test(s[j]!)) j++;
    const atEnd = j >= s.length;
    const followedBySpace = !atEnd && s[j] === ' ';
    if (!atEnd && !followedBySpace) {
      // A dot inside a token: 3.14, v1.2.3, file.ts, e.g.,
      i = j;
      continue;
    }
    const next = followedBySpace ? s[j + 1] : undefined;
    const isEllipsis = run.length >= 3 || run.includes('…');
    let ends = atEnd || isUpperStart(next);
    if (ends && !atEnd && run === '.') {
      const word = wordBefore(s, i).toLowerCase();
      const bare = word.replace(/\.+$/, '');
      if (NEVER_ENDS.has(bare)) ends = false;
      else if (BEFORE_NUMBER.has(bare) && next !== undefined && /\d/.test(next)) ends = false;
    }
    if (isEllipsis && !atEnd && !isUpperStart(next)) ends = false;
    if (ends) {
      out.push(s.slice(start, j).trim());
      start = j;
    }
    i = j;
  }
  if (start < s.length) out.push(s.slice(start).trim());
  return out.filter((x) => /[\p{L}\p{N}]/u.test(x));
}

export function countSentences(text: string): number {
  return splitSentences(text).length;
}
