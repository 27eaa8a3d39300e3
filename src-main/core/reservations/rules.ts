import { invalid } from '../errors/app-error.js';
import { invisibleCodePoint } from '../util/invisible.js';
import { PATH_MAX_CHARS } from '../../../shared/schemas/reservations.js';

/**
 * The pure rules of path reservations: what a pattern is, which paths it covers, and
 * whether two patterns can cover a common path (docs/reservations.md "Patterns").
 *
 * Patterns are repository-relative globs with gitignore-like meaning: `*` stays inside one
 * path segment, `**` spans segments, a trailing `/` means "this directory and everything in
 * it", and a pattern that may name a directory covers what is inside it (gitignore ignores a
 * directory's contents the same way). Patterns are always anchored at the repository root,
 * and matching is case-sensitive, as git is.
 *
 * The matcher is our own and never backtracks more than once: a segment glob is matched by
 * the classic greedy walk that only returns to the last `*` (time ∝ glob × name length), and
 * two segment lists meet by a memoised walk (time ∝ segments × segments). Every bound below is
 * an INVALID_ARGUMENT, and each request charges its work to a {@link Budget}, so no input,
 * however the room is filled, holds the server for long (docs/security.md "No input freezes
 * the server").
 */

export const PATTERN_MAX_CHARS = 512;
export const SEGMENTS_MAX = 64;
/** Characters of one segment of a pattern or a path (a file name is at most 255 bytes). */
export const SEGMENT_MAX_CHARS = 255;
/** Wildcards of one pattern: each `*` run, `?`, `[…]` class, `{…}` group and `**` segment counts one. */
export const WILDCARDS_MAX = 16;
/** Names one `{…}` segment may expand to. */
export const BRACE_ALTERNATIVES_MAX = 16;
/** Characters (PATH_MAX_CHARS, shared/schemas/reservations.ts: the guard's body says it too) and segments of a concrete path (the guard's staged paths, list_reservations path=). */
export const PATH_SEGMENTS_MAX = 128;

/** One character test of a compiled segment glob; a `*` run is `STAR`. */
type Token = string | typeof STAR | typeof ANY | CharClass;
const STAR = 0;
const ANY = 1;
interface CharClass {
  neg: boolean;
  ranges: Array<[number, number]>;
}

/** One `/`-separated piece of a pattern or a path; a concrete path's pieces are never globs (a `**` in a path is a name). */
export interface Segment {
  text: string;
  glob: boolean;
  /** The whole segment is `**` in a pattern: any number of segments. */
  globstar: boolean;
  /** A glob segment's compiled form (set by parsePattern). */
  compiled?: Compiled;
}

export interface ParsedPattern {
  pattern: string;
  segments: Segment[];
  /** It may name a directory, so it also covers everything below what it matches. */
  coversBelow: boolean;
}

/**
 * Work a request may spend on matching (one unit ≈ one step of a walk): a request that would
 * need more fails with INVALID_ARGUMENT `too_complex` instead of holding the event loop.
 */
export class Budget {
  constructor(public left: number = Budget.PER_REQUEST) {}
  /**
   * A few milliseconds of matching warm (15,000–70,000 units a millisecond, the slowest for
   * globs against names), about 10–20 ms in a process that has not run the matcher yet
   * (docs/reservations.md "Bounded work"); reserve_paths and the guard check spend it a
   * slice per turn of the event loop (Pacer). An ordinary request uses a few hundred units;
   * 50 ordinary globs against 300 held ones 15,000 to 60,000 (60,000 when many of them meet).
   */
  static PER_REQUEST = 100_000;
  spend(n: number): void {
    this.left -= n;
    if (this.left < 0) {
      throw invalid(
        'these patterns need too much matching against the reservations of this room; use fewer wildcards or a longer literal start (e.g. src/api/** rather than **/*api*)',
        'too_complex',
      );
    }
  }
}

/**
 * How much matching one turn of the event loop may do before a request that can wait (reserve_paths,
 * the guard check) lets the loop serve others: a few hundred pairs or a few thousand steps, well
 * under a millisecond warm and a few in a process that has not run the matcher yet, so a request
 * that spends its whole budget still never holds the loop long (docs/reservations.md "Bounded work").
 */
export const PAIRS_PER_TURN = 200;
export const STEPS_PER_TURN = 2_000;

/** Counts the pairs and steps of the current turn: `due()` after each pair says when to yield. */
export class Pacer {
  private pairs = 0;
  private mark: number;
  constructor(private readonly budget: Budget) {
    this.mark = budget.left;
  }
  due(): boolean {
    if (++this.pairs < PAIRS_PER_TURN && this.mark - this.budget.left < STEPS_PER_TURN) return false;
    this.pairs = 0;
    this.mark = this.budget.left;
    return true;
  }
}

const badPattern = (why: string) => invalid(`path pattern refused: ${why}`, 'bad_pattern');

/** Refuses text holding an invisible character, naming its code point. */
function refuseInvisible(text: string, what: string): void {
  const cp = invisibleCodePoint(text);
  if (cp) throw invalid(`${what} refused: it contains the invisible or control character ${cp}, which can disguise it as another path`, 'bad_pattern');
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
  refuseInvisible(p, 'path pattern');
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
  let wildcards = 0;
  for (const s of parts) {
    if (s.length > SEGMENT_MAX_CHARS) throw badPattern(`a segment is over ${SEGMENT_MAX_CHARS} characters`);
    const c = s === '**' ? { wildcards: 1 } : compileSegment(s);
    wildcards += c.wildcards;
  }
  if (wildcards > WILDCARDS_MAX) throw badPattern(`it has ${wildcards} wildcards; at most ${WILDCARDS_MAX} (each *, ?, […], {…} and ** counts one)`);
  return parts.join('/');
}

/** A last segment that ends in a literal extension (`*.ts`, `routes.ts`) names files, not directories. */
function namesFile(last: string): boolean {
  return /^[^.].*\.[A-Za-z0-9_~-]+$/.test(last);
}

/**
 * A stored pattern's parsed form, kept between requests: every request of a room parses the
 * room's held patterns again, and a parse costs more than most comparisons (the parsed form is
 * never changed by its users).
 */
const parsedCache = new Map<string, ParsedPattern>();
const PARSED_CACHE_MAX = 5000;

export function parsePattern(normalized: string): ParsedPattern {
  const hit = parsedCache.get(normalized);
  if (hit) return hit;
  const parts = normalized.split('/');
  const last = parts[parts.length - 1]!;
  const parsed: ParsedPattern = {
    pattern: normalized,
    segments: parts.map((text) => {
      if (text === '**') return { text, glob: true, globstar: true };
      const compiled = compileSegment(text);
      return compiled.glob ? { text, glob: true, globstar: false, compiled } : { text, glob: false, globstar: false };
    }),
    coversBelow: last !== '**' && !namesFile(last),
  };
  if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.clear();
  parsedCache.set(normalized, parsed);
  return parsed;
}

/**
 * A concrete repository path (e.g. a staged file) as literal segments; undefined when it is
 * not a clean relative path. Over-long paths are INVALID_ARGUMENT. Its segments are names:
 * `**` or `*` in a path is a file called that, never a wildcard.
 */
export function parsePath(raw: string): ParsedPattern | undefined {
  if (raw.length > PATH_MAX_CHARS) throw invalid(`a path is at most ${PATH_MAX_CHARS} characters`, 'bad_path');
  let p = raw;
  while (p.startsWith('./')) p = p.slice(2);
  const parts = p.split('/').filter((s) => s.length > 0);
  if (!parts.length || parts.some((s) => s === '.' || s === '..')) return undefined;
  if (parts.length > PATH_SEGMENTS_MAX) throw invalid(`a path has at most ${PATH_SEGMENTS_MAX} segments`, 'bad_path');
  if (parts.some((s) => s.length > SEGMENT_MAX_CHARS)) throw invalid(`a path segment is at most ${SEGMENT_MAX_CHARS} characters`, 'bad_path');
  return { pattern: parts.join('/'), segments: parts.map((text) => ({ text, glob: false, globstar: false })), coversBelow: false };
}

// ---- one segment: compile and match ----

interface Compiled {
  /** The token lists of its brace alternatives (one when it has no braces). */
  alts: Token[][];
  glob: boolean;
  wildcards: number;
  /** Its literal text before the first and after the last glob character. */
  ends: { head: string; tail: string };
}

/** `{a,b}` at the top level of `s`: the first group with a comma, as [open, close, comma positions]. */
function firstBraceGroup(s: string): { open: number; close: number; commas: number[] } | undefined {
  for (let open = s.indexOf('{'); open >= 0; open = s.indexOf('{', open + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = open; i < s.length; i++) {
      const ch = s[i];
      if (ch === '{') depth++;
      else if (ch === '}') {
        depth--;
        if (depth === 0) {
          if (commas.length) return { open, close: i, commas };
          break;
        }
      } else if (ch === ',' && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

/** The names a segment's braces stand for (`{api,web}.ts` → `api.ts`, `web.ts`), at most BRACE_ALTERNATIVES_MAX. */
function expandBraces(s: string, groups: { n: number }): string[] {
  const g = firstBraceGroup(s);
  if (!g) return [s];
  groups.n++;
  const bounds = [g.open, ...g.commas, g.close];
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const one = s.slice(0, g.open) + s.slice(bounds[k]! + 1, bounds[k + 1]) + s.slice(g.close + 1);
    for (const x of expandBraces(one, groups)) {
      out.push(x);
      if (out.length > BRACE_ALTERNATIVES_MAX) throw badPattern(`braces expand to more than ${BRACE_ALTERNATIVES_MAX} names in one segment`);
    }
  }
  return out;
}

/** A `[…]` class at `i` (`[!…]`/`[^…]` negate, `a-z` ranges, a leading `]` is literal); undefined when unclosed (then `[` is literal). */
function parseClass(cps: string[], i: number): { cls: CharClass; end: number } | undefined {
  let j = i + 1;
  const neg = cps[j] === '!' || cps[j] === '^';
  if (neg) j++;
  const ranges: Array<[number, number]> = [];
  let first = true;
  for (; j < cps.length; j++) {
    const c = cps[j]!;
    if (c === ']' && !first) return { cls: { neg, ranges }, end: j };
    first = false;
    const lo = c.codePointAt(0)!;
    if (cps[j + 1] === '-' && j + 2 < cps.length && cps[j + 2] !== ']') {
      ranges.push([lo, cps[j + 2]!.codePointAt(0)!]);
      j += 2;
    } else ranges.push([lo, lo]);
  }
  return undefined;
}

function tokenize(name: string): { tokens: Token[]; wildcards: number } {
  const cps = Array.from(name);
  const tokens: Token[] = [];
  let wildcards = 0;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '*') {
      if (tokens[tokens.length - 1] !== STAR) {
        tokens.push(STAR);
        wildcards++;
      }
    } else if (c === '?') {
      tokens.push(ANY);
      wildcards++;
    } else if (c === '[') {
      const cls = parseClass(cps, i);
      if (cls) {
        tokens.push(cls.cls);
        wildcards++;
        i = cls.end;
      } else tokens.push(c);
    } else tokens.push(c);
  }
  return { tokens, wildcards };
}

const compiled = new Map<string, Compiled>();
function compileSegment(text: string): Compiled {
  let c = compiled.get(text);
  if (c) return c;
  const groups = { n: 0 };
  const names = expandBraces(text, groups);
  const parts = names.map(tokenize);
  const alts = parts.map((p) => p.tokens);
  const wildcards = groups.n + Math.max(...parts.map((p) => p.wildcards));
  c = { alts, glob: groups.n > 0 || alts.some((t) => t.some((x) => typeof x !== 'string')), wildcards, ends: literalEnds(text) };
  if (compiled.size > 5000) compiled.clear();
  compiled.set(text, c);
  return c;
}

function oneChar(t: Token, cp: string): boolean {
  if (typeof t === 'string') return t === cp;
  if (t === ANY) return true;
  if (t === STAR) return false;
  const code = cp.codePointAt(0)!;
  const inside = t.ranges.some(([lo, hi]) => code >= lo && code <= hi);
  return inside !== t.neg;
}

/**
 * Does one glob alternative match the whole name? The greedy walk that returns only to the
 * last `*`: each `*` may take any run of characters, `?` and a class take one.
 */
function matchTokens(tokens: Token[], name: string | string[], budget: Budget): boolean {
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = 0;
  let steps = 0;
  while (i < name.length) {
    steps++;
    const t = tokens[p];
    if (p < tokens.length && t !== STAR && oneChar(t!, name[i]!)) {
      p++;
      i++;
    } else if (p < tokens.length && t === STAR) {
      starP = p++;
      starI = i;
    } else if (starP >= 0) {
      p = starP + 1;
      i = ++starI;
    } else {
      budget.spend(steps);
      return false;
    }
  }
  budget.spend(steps);
  while (p < tokens.length && tokens[p] === STAR) p++;
  return p === tokens.length;
}

/** Does a segment glob match this literal name? */
export function segmentMatches(glob: string, name: string, budget: Budget = new Budget(), c: Compiled = compileSegment(glob)): boolean {
  // By code point; a name without surrogate pairs (nearly all) is indexed as it is, without a copy.
  const cps = /[\uD800-\uDFFF]/.test(name) ? Array.from(name) : name;
  return c.alts.some((t) => matchTokens(t, cps, budget));
}

const GLOB_CHARS = /[*?[\]{}]/;

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
export function segmentsMeet(a: Segment, b: Segment, budget: Budget = new Budget()): boolean {
  budget.spend(1);
  if (a.text === b.text) return true;
  if (!a.glob && !b.glob) return false;
  if (!a.glob) return segmentMatches(b.text, a.text, budget, b.compiled);
  if (!b.glob) return segmentMatches(a.text, b.text, budget, a.compiled);
  budget.spend(4);
  const x = (a.compiled ?? compileSegment(a.text)).ends;
  const y = (b.compiled ?? compileSegment(b.text)).ends;
  const headsAgree = x.head.startsWith(y.head) || y.head.startsWith(x.head);
  const tailsAgree = x.tail.endsWith(y.tail) || y.tail.endsWith(x.tail);
  return headsAgree && tailsAgree;
}

/**
 * Is there a path both cover? A memoised walk over the two segment lists (each pair of
 * positions is looked at once) where `**` may absorb any number of the other's segments;
 * when one list ends first, the other continues below it, which is a common path only if the
 * finished one covers what is below it (or what is left of the other is only `**`, which may
 * match nothing).
 */
export function overlaps(a: ParsedPattern, b: ParsedPattern, budget: Budget = new Budget()): boolean {
  const A = a.segments;
  const B = b.segments;
  if (!endsMeet(a, b, budget)) return false;
  const W = B.length + 1;
  const cells = (A.length + 1) * W;
  // 0 unknown, 1 on the stack or false, 2 true. One buffer for every pair (the walk is synchronous and never nested).
  if (memoBuffer.length < cells) memoBuffer = new Uint8Array(cells);
  const memo = memoBuffer;
  memo.fill(0, 0, cells);
  budget.spend(cells >> 6);
  const restStars = (s: Segment[], k: number) => {
    for (let x = k; x < s.length; x++) if (!s[x]!.globstar) return false;
    return true;
  };
  const go = (i: number, j: number): boolean => {
    const key = i * W + j;
    if (memo[key]) return memo[key] === 2;
    memo[key] = 1;
    budget.spend(1);
    let r: boolean;
    if (i === A.length && j === B.length) r = true;
    else if (i === A.length) r = a.coversBelow || restStars(B, j);
    else if (j === B.length) r = b.coversBelow || restStars(A, i);
    else if (A[i]!.globstar) r = go(i + 1, j) || go(i, j + 1);
    else if (B[j]!.globstar) r = go(i, j + 1) || go(i + 1, j);
    else r = segmentsMeet(A[i]!, B[j]!, budget) && go(i + 1, j + 1);
    memo[key] = r ? 2 : 1;
    return r;
  };
  return go(0, 0);
}

let memoBuffer = new Uint8Array(4096);

/**
 * The cheap refusal before the walk: a segment other than `**` stands for exactly one path
 * segment, so the segments before each pattern's first `**` meet the same leading path
 * segments one for one, and, when neither pattern covers below (the path ends where they do),
 * the segments after each one's last `**` meet the same trailing ones. A pair that disagrees
 * there has no common path (`src/api/**` against `src/web/**`, two deep patterns ending in
 * `d/w/*.ts` and `d/h/*.ts`), at a cost of a few steps instead of the walk over every pair of positions.
 */
function endsMeet(a: ParsedPattern, b: ParsedPattern, budget: Budget): boolean {
  const A = a.segments;
  const B = b.segments;
  const n = Math.min(A.length, B.length);
  for (let k = 0; k < n && !A[k]!.globstar && !B[k]!.globstar; k++) if (!segmentsMeet(A[k]!, B[k]!, budget)) return false;
  if (a.coversBelow || b.coversBelow) return true;
  for (let k = 1; k <= n && !A[A.length - k]!.globstar && !B[B.length - k]!.globstar; k++) {
    if (!segmentsMeet(A[A.length - k]!, B[B.length - k]!, budget)) return false;
  }
  return true;
}

/** Does this pattern cover this concrete path (or a directory above it)? */
export function covers(pattern: ParsedPattern, path: ParsedPattern, budget: Budget = new Budget()): boolean {
  return overlaps(pattern, path, budget);
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
export function conflicts(want: HeldPattern, held: HeldPattern, budget: Budget = new Budget()): boolean {
  if (want.plate === held.plate) return false;
  if (!want.exclusive && !held.exclusive) return false;
  return overlaps(want.parsed, held.parsed, budget);
}

/**
 * Patterns indexed by their first segment when it is a literal: a pattern (or path) whose
 * first segment is the literal `src` is only compared with the patterns filed under `src`
 * and with those that start with a glob, never with every pattern of the room.
 */
export class PatternIndex<T extends { parsed: ParsedPattern }> {
  private byHead = new Map<string, T[]>();
  private wild: T[] = [];
  private all: T[] = [];
  constructor(items: Iterable<T> = []) {
    for (const x of items) this.add(x);
  }
  add(x: T): void {
    this.all.push(x);
    const first = x.parsed.segments[0]!;
    if (first.glob) this.wild.push(x);
    else (this.byHead.get(first.text) ?? this.byHead.set(first.text, []).get(first.text)!).push(x);
  }
  /** The items that may overlap this pattern or path (a superset of those that do). */
  candidates(p: ParsedPattern): T[] {
    const first = p.segments[0]!;
    if (first.glob) return this.all;
    const same = this.byHead.get(first.text);
    return same ? (this.wild.length ? [...same, ...this.wild] : same) : this.wild;
  }
}
