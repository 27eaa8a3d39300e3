import picomatch from 'picomatch';
import { invalid } from '../errors/app-error.js';

/**
 * The pure rules of path reservations: what a pattern is, which paths it covers, and
 * whether two patterns can cover a common path (decisions.md "Path reservations").
 *
 * Patterns are repository-relative globs matched by picomatch with gitignore-like
 * meaning: `*` stays inside one path segment, `**` spans segments, a trailing `/` means
 * "this directory and everything in it", and a pattern that may name a directory covers
 * what is inside it (gitignore ignores a directory's contents the same way). Patterns are
 * always anchored at the repository root, and matching is case-sensitive, as git is.
 */

export const PATTERN_MAX_CHARS = 512;
const SEGMENTS_MAX = 64;
const PICO = { dot: true } as const;

/** One `/`-separated piece of a pattern or a path; a concrete path's pieces are never globs. */
export interface Segment {
  text: string;
  glob: boolean;
}

export interface ParsedPattern {
  pattern: string;
  segments: Segment[];
  /** It may name a directory, so it also covers everything below what it matches. */
  coversBelow: boolean;
}

/**
 * The canonical form of a pattern, or INVALID_ARGUMENT. Negations are refused: a
 * reservation says what one holds, and "everything except" is not something to hold.
 */
export function normalizePattern(raw: string): string {
  let p = raw.trim();
  if (!p) throw invalid('a path pattern must not be empty', 'bad_pattern');
  if (p.length > PATTERN_MAX_CHARS) throw invalid(`a path pattern is at most ${PATTERN_MAX_CHARS} characters`, 'bad_pattern');
  if (/[\u0000-\u001f\u007f]/.test(p)) throw invalid('a path pattern must not contain control characters', 'bad_pattern');
  if (p.startsWith('!')) throw invalid('negated patterns (!…) are not supported; reserve what you edit', 'negation_unsupported');
  if (p.includes('\\')) throw invalid('use forward slashes in path patterns (repository-relative, like git)', 'bad_pattern');
  while (p.startsWith('./')) p = p.slice(2);
  if (p.startsWith('/')) p = p.slice(1);
  const dir = p.endsWith('/');
  const parts = p.split('/').filter((s) => s.length > 0);
  if (parts.length === 0) throw invalid('a path pattern must name something inside the repository; use ** for all of it', 'bad_pattern');
  if (parts.some((s) => s === '.' || s === '..')) throw invalid('a path pattern must stay inside the repository (no . or .. segments)', 'bad_pattern');
  if (dir && parts[parts.length - 1] !== '**') parts.push('**');
  if (parts.length > SEGMENTS_MAX) throw invalid(`a path pattern has at most ${SEGMENTS_MAX} segments`, 'bad_pattern');
  return parts.join('/');
}

/** A last segment that ends in a literal extension (`*.ts`, `routes.ts`) names files, not directories. */
function namesFile(last: string): boolean {
  return /^[^.].*\.[A-Za-z0-9_~-]+$/.test(last);
}

export function parsePattern(normalized: string): ParsedPattern {
  const parts = normalized.split('/');
  const last = parts[parts.length - 1]!;
  return {
    pattern: normalized,
    segments: parts.map((text) => ({ text, glob: text === '**' || picomatch.scan(text).isGlob })),
    coversBelow: last !== '**' && !namesFile(last),
  };
}

/** A concrete repository path (e.g. a staged file) as literal segments; undefined when it is not a clean relative path. */
export function parsePath(raw: string): ParsedPattern | undefined {
  let p = raw;
  while (p.startsWith('./')) p = p.slice(2);
  const parts = p.split('/').filter((s) => s.length > 0);
  if (!parts.length || parts.some((s) => s === '.' || s === '..')) return undefined;
  return { pattern: parts.join('/'), segments: parts.map((text) => ({ text, glob: false })), coversBelow: false };
}

const matchers = new Map<string, (s: string) => boolean>();
function segmentMatcher(glob: string): (s: string) => boolean {
  let m = matchers.get(glob);
  if (!m) {
    if (matchers.size > 5000) matchers.clear();
    m = picomatch(glob, PICO);
    matchers.set(glob, m);
  }
  return m;
}

const GLOB_CHARS = /[*?[\]{}()!+@]/;

/** The literal text before the first glob character, and after the last one. */
function literalEnds(s: string): { head: string; tail: string } {
  const first = s.search(GLOB_CHARS);
  let last = -1;
  for (let i = s.length - 1; i >= 0; i--) {
    if (GLOB_CHARS.test(s[i]!)) {
      last = i;
      break;
    }
  }
  return { head: first < 0 ? s : s.slice(0, first), tail: last < 0 ? s : s.slice(last + 1) };
}

/**
 * Can one path segment be matched by both? Exact for a literal against anything (the
 * literal itself is the sample); for two globs it compares their literal heads and tails
 * (`*.ts` never meets `*.md`, `a*` never meets `b*`) and otherwise says yes: a false
 * conflict costs a retry, a missed one costs a clobbered file.
 */
export function segmentsMeet(a: Segment, b: Segment): boolean {
  if (a.text === b.text) return true;
  if (!a.glob && !b.glob) return false;
  if (!a.glob) return segmentMatcher(b.text)(a.text);
  if (!b.glob) return segmentMatcher(a.text)(b.text);
  const x = literalEnds(a.text);
  const y = literalEnds(b.text);
  const headsAgree = x.head.startsWith(y.head) || y.head.startsWith(x.head);
  const tailsAgree = x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail);
  return headsAgree && tailsAgree;
}

/**
 * Is there a path both cover? A walk over the two segment lists where `**` may absorb any
 * number of the other's segments; when one list ends first, the other continues below it,
 * which is a common path only if the finished one covers what is below it (or what is
 * left of the other is only `**`, which may match nothing).
 */
export function overlaps(a: ParsedPattern, b: ParsedPattern): boolean {
  const A = a.segments;
  const B = b.segments;
  const memo = new Map<number, boolean>();
  const rest = (s: Segment[], k: number) => s.slice(k).every((x) => x.text === '**');
  const go = (i: number, j: number): boolean => {
    const key = i * (B.length + 1) + j;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    memo.set(key, false);
    let r: boolean;
    if (i === A.length && j === B.length) r = true;
    else if (i === A.length) r = a.coversBelow || rest(B, j);
    else if (j === B.length) r = b.coversBelow || rest(A, i);
    else if (A[i]!.text === '**') r = go(i + 1, j) || go(i, j + 1);
    else if (B[j]!.text === '**') r = go(i, j + 1) || go(i + 1, j);
    else r = segmentsMeet(A[i]!, B[j]!) && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

/** Does this pattern cover this concrete path (or a directory above it)? */
export function covers(pattern: ParsedPattern, path: ParsedPattern): boolean {
  return overlaps(pattern, path);
}

export interface HeldPattern {
  plate: string;
  parsed: ParsedPattern;
  exclusive: boolean;
}

/**
 * Two reservations conflict when they belong to different holders, their patterns can
 * cover a common path, and at least one of them is exclusive (shared ones coexist).
 */
export function conflicts(want: HeldPattern, held: HeldPattern): boolean {
  if (want.plate === held.plate) return false;
  if (!want.exclusive && !held.exclusive) return false;
  return overlaps(want.parsed, held.parsed);
}
