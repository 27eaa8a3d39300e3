import { ISSUED_SECRET_PREFIXES } from './ids.js';

/**
 * The one masking of secrets in text a human may read (docs/security.md, items 1 and 17 and
 * "Third round"): output tails and transcripts of runs, the usage a run reports, `--version`
 * lines, git's words, the doctor's report. Every shape is matched by a scan that reads each
 * character a bounded number of times, so its time is linear in the text whatever the text is:
 * the regular expressions it replaces backtracked (64 KiB of `eyJ-eyJ-…` held the event loop 5.5
 * to 11.5 s in the JWS pattern; 64 KiB of `a.a.a.…` 21 s in the URL one).
 *
 * The shapes, in the order they apply:
 * 1. the known secrets of the caller (a run's credential, runner env values, the home's keys,
 *    git tokens): every occurrence, by one automaton over all of them (`SecretMasker`);
 * 2. credentials by their context: `Bearer <token>`, `?key=<value>` / `&key=<value>`, and the
 *    user:password of a URL (`scheme://user:pw@`);
 * 3. every secret this server issues, whoever it belongs to: `ark_`, `aro_`, … (util/ids.ts
 *    ISSUED_SECRET_PREFIXES) followed by 20+ characters of the base64url alphabet;
 * 4. compact JWS (passports): `eyJ` at a word boundary, three dot-joined base64url parts of 8+.
 * Each replaces the secret by `***` (an issued one by `<prefix>_***`, a JWS by `eyJ***`).
 */

/** The base64url alphabet: a compact JWS is three runs of it joined by dots. */
function isB64url(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/** A regex word character (what `\b` looks at, without the u flag). */
function isWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

/** What `\s` matches. */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

// ------------------------------------------------------------------ 1. known secrets

/**
 * Masks every occurrence of a set of known secrets in one pass (an Aho-Corasick automaton built
 * once for the set): each character of the text is one step, however many secrets there are
 * (splitting the text once per secret was a pass per secret, over every line of a transcript).
 * Where occurrences overlap, their union is masked as one `***` (the old pass masked the first
 * secret's and left the rest of an overlapping one shown); occurrences that only touch stay two.
 */
export class SecretMasker {
  /** Transitions of each node but the root, by character code. */
  private readonly next: Map<number, number>[] = [];
  /** The root's transitions, dense: most characters of a text start nothing. */
  private readonly rootNext = new Map<number, number>();
  private readonly fail: number[] = [0];
  /** The longest secret ending at each node (0: none). */
  private readonly longest: number[] = [0];
  readonly empty: boolean;

  constructor(secrets: readonly string[]) {
    this.next.push(this.rootNext);
    for (const secret of secrets) {
      if (typeof secret !== 'string' || !secret) continue;
      let node = 0;
      for (let i = 0; i < secret.length; i++) {
        const c = secret.charCodeAt(i);
        let to = this.next[node]!.get(c);
        if (to === undefined) {
          to = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.longest.push(0);
          this.next[node]!.set(c, to);
        }
        node = to;
      }
      this.longest[node] = Math.max(this.longest[node]!, secret.length);
    }
    this.empty = this.next.length === 1;
    // Failure links breadth first; each node's longest also counts the secrets ending at its suffixes.
    const queue: number[] = [];
    for (const to of this.rootNext.values()) queue.push(to);
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      for (const [c, to] of this.next[node]!) {
        let f = this.fail[node]!;
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!;
        const target = this.next[f]!.get(c);
        this.fail[to] = target !== undefined && target !== to ? target : 0;
        this.longest[to] = Math.max(this.longest[to]!, this.longest[this.fail[to]!]!);
        queue.push(to);
      }
    }
  }

  mask(s: string): string {
    if (this.empty) return s;
    const n = s.length;
    let out = '';
    let copied = 0;
    // The masked interval being grown: [from, to), not yet written.
    let from = -1;
    let to = -1;
    let node = 0;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      for (;;) {
        const t = node === 0 ? this.rootNext.get(c) : this.next[node]!.get(c);
        if (t !== undefined) {
          node = t;
          break;
        }
        if (node === 0) break;
        node = this.fail[node]!;
      }
      const len = this.longest[node]!;
      if (len === 0) continue;
      const start = i + 1 - len;
      if (from >= 0 && start < to) {
        to = i + 1;
        from = Math.max(copied, Math.min(from, start));
      } else {
        if (from >= 0) {
          out += s.slice(copied, from) + '***';
          copied = to;
        }
        from = Math.max(start, copied);
        to = i + 1;
      }
    }
    if (from >= 0) {
      out += s.slice(copied, from) + '***';
      copied = to;
    }
    return copied === 0 ? s : out + s.slice(copied);
  }
}

// ------------------------------------------------------------------ 2. credentials by context

/** `Bearer <token>` (any case, any whitespace between) as `Bearer ***`: what `/(Bearer\s+)\S+/gi` gave. */
function maskBearer(s: string): string {
  const n = s.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i + 6 < n) {
    const b = s.charCodeAt(i);
    if ((b !== 98 && b !== 66) || !wordAt(s, i + 1, 'earer')) {
      i++;
      continue;
    }
    let j = i + 6;
    while (j < n && isSpace(s.charCodeAt(j))) j++;
    if (j === i + 6 || j >= n) {
      // No token after it: the next start is past the spaces (none of them starts one).
      i = Math.max(i + 1, j);
      continue;
    }
    let k = j;
    while (k < n && !isSpace(s.charCodeAt(k))) k++;
    out += s.slice(copied, j) + '***';
    copied = k;
    i = k;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** Does s hold `word` (ASCII, any case) at i? */
function wordAt(s: string, i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (lower(s.charCodeAt(i + k)) !== word.charCodeAt(k)) return false;
  return true;
}

/** `?key=<value>` and `&key=<value>` as `?key=***`: what `/([?&]key=)[^&\s"']+/g` gave. */
function maskKeyParam(s: string): string {
  const n = s.length;
  let out = '';
  let copied = 0;
  let i = 0;
  for (;;) {
    const at = s.indexOf('key=', i + 1);
    if (at < 0) break;
    const before = s.charCodeAt(at - 1);
    if (before !== 63 && before !== 38) {
      i = at;
      continue;
    }
    let k = at + 4;
    while (k < n) {
      const c = s.charCodeAt(k);
      if (c === 38 || c === 34 || c === 39 || isSpace(c)) break;
      k++;
    }
    if (k === at + 4) {
      i = at;
      continue;
    }
    out += s.slice(copied, at + 4) + '***';
    copied = k;
    i = k - 1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** A URL scheme's characters, as `[a-z0-9+.-]` with the i flag. */
function isSchemeChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 43 || c === 46 || c === 45;
}
const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/**
 * The user information of URLs (`https://user:pw@host` as `https://***@host`): what
 * `/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi` gave, which tried every letter of a run like
 * `a.a.a.…` as a scheme and read the run again each time. Every start inside one run of scheme
 * characters ends its scheme at the same place (the run's end), so a run is checked once, from its
 * first start at a word boundary; the user part ends at the next `/`, `@` or space.
 */
export function maskUrlUserinfo(s: string): string {
  if (!s.includes('://')) return s;
  const n = s.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (!isSchemeChar(s.charCodeAt(i))) {
      i++;
      continue;
    }
    let q = i;
    let start = -1;
    while (q < n && isSchemeChar(s.charCodeAt(q))) {
      if (start < 0 && isLetter(s.charCodeAt(q)) && (q === 0 || !isWord(s.charCodeAt(q - 1)))) start = q;
      q++;
    }
    if (start >= 0 && s.startsWith('://', q)) {
      let r = q + 3;
      while (r < n) {
        const c = s.charCodeAt(r);
        if (c === 47 || c === 64 || isSpace(c)) break;
        r++;
      }
      if (r > q + 3 && s.charCodeAt(r) === 64) {
        out += s.slice(copied, q + 3) + '***@';
        copied = r + 1;
        i = r + 1;
        continue;
      }
    }
    i = q;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

/** Credentials told by what stands before them: bearer tokens, `key=` parameters, a URL's user:password. */
export function maskCredentialForms(s: string): string {
  return maskUrlUserinfo(maskKeyParam(maskBearer(s)));
}

// ------------------------------------------------------------------ 3. issued secrets

/** An issued secret's prefix is followed by at least this many characters of the alphabet. */
const ISSUED_SECRET_MIN = 20;
const PREFIX_STARTS = new Set(ISSUED_SECRET_PREFIXES.map((p) => p.charCodeAt(0)));

/**
 * Masks every prefixed secret this server issues (util/ids.ts ISSUED_SECRET_PREFIXES:
 * credentials, owner tokens, UI sessions, login links, event tickets) as `<prefix>_***`: the
 * same matches as `\b(ark|aro|…)_[A-Za-z0-9_-]{20,}` would give, in one pass (a greedy regex over
 * a long run held a backtrack entry per character of it).
 */
function maskIssuedPrefixes(s: string): string {
  if (!s.includes('_')) return s;
  const n = s.length;
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    const boundary = (i > 0 && isWord(s.charCodeAt(i - 1))) !== isWord(c);
    if (!PREFIX_STARTS.has(c) || !boundary) {
      i++;
      continue;
    }
    let end = -1;
    for (const prefix of ISSUED_SECRET_PREFIXES) {
      if (!s.startsWith(prefix, i)) continue;
      // A failed try stops within ISSUED_SECRET_MIN characters; a match takes the rest of its run.
      let j = i + prefix.length;
      while (j < n && isB64url(s.charCodeAt(j))) j++;
      if (j - i - prefix.length >= ISSUED_SECRET_MIN) {
        out += s.slice(copied, i) + prefix + '***';
        copied = end = j;
        break;
      }
    }
    i = end >= 0 ? end : i + 1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

// ------------------------------------------------------------------ 4. compact JWS

/** Each part of a masked JWS has at least this many characters. */
const JWS_PART_MIN = 8;

/**
 * Masks every compact JWS (passports): three base64url parts of 8+ characters, the first
 * starting `eyJ` (a JSON header) at a word boundary, as `eyJ***`. The same matches, left to
 * right, as `\beyJ[…]{8,}\.[…]{8,}\.[…]{8,}` would give, in one pass over the runs of the
 * alphabet: a greedy part takes its whole run (a dot is not in the alphabet), so whether a run
 * holds the start of a match depends only on the two runs after it and on where in it the first
 * `eyJ` is.
 */
function maskCompactJws(s: string): string {
  if (!s.includes('eyJ')) return s;
  const n = s.length;
  /** The end of the run of the alphabet that starts at i (i itself when none does). */
  const runEnd = (i: number) => {
    while (i < n && isB64url(s.charCodeAt(i))) i++;
    return i;
  };
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < n) {
    if (!isB64url(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    const end1 = runEnd(start);
    let matchEnd = -1;
    // The first part is what follows `eyJ` to the end of its run; then `.part.part`, each a whole run.
    if (end1 - start >= 3 + JWS_PART_MIN && s.charCodeAt(end1) === 46) {
      const end2 = runEnd(end1 + 1);
      if (end2 - end1 - 1 >= JWS_PART_MIN && s.charCodeAt(end2) === 46) {
        const end3 = runEnd(end2 + 1);
        if (end3 - end2 - 1 >= JWS_PART_MIN) matchEnd = end3;
      }
    }
    let matched = false;
    if (matchEnd >= 0) {
      // Inside a run, a word boundary before `e` is a `-` before it; at the run's start there always is one.
      for (let j = start; j + 3 + JWS_PART_MIN <= end1; j++) {
        if (s.charCodeAt(j) === 101 && s.charCodeAt(j + 1) === 121 && s.charCodeAt(j + 2) === 74 && (j === start || s.charCodeAt(j - 1) === 45)) {
          out += s.slice(copied, j) + 'eyJ***';
          copied = matchEnd;
          matched = true;
          break;
        }
      }
    }
    // Past a match the scan goes on after its third part; past a run without one, after the run
    // (the runs after it are still tried as first parts of their own).
    i = matched ? matchEnd : end1;
  }
  return copied === 0 ? s : out + s.slice(copied);
}

// ------------------------------------------------------------------ all of them

/** Masks every secret shape this server knows without being told (shapes 2 to 4 above), whoever it belongs to. */
export function maskIssuedSecrets(s: string): string {
  // Issued prefixes before JWS: a masked one (`ark_***`) breaks a JWS around it, as it always did.
  return maskCompactJws(maskIssuedPrefixes(maskCredentialForms(s)));
}

const maskers = new WeakMap<readonly string[], SecretMasker>();

/** The automaton of a list of secrets, built once per list (a run's list is the same array for each string of its output). */
export function maskerOf(secrets: readonly string[]): SecretMasker {
  let m = maskers.get(secrets);
  if (!m) maskers.set(secrets, (m = new SecretMasker(secrets)));
  return m;
}

/** The known secrets (a run's credential, its env values, …) as `***`, then every other shape. */
export function maskSecrets(s: string, secrets: readonly string[]): string {
  return maskIssuedSecrets(secrets.length ? maskerOf(secrets).mask(s) : s);
}

/**
 * The masked text, at most `max` characters of it from its start (`fromEnd`: of its end), however
 * long the text: only a window of it is masked (`max` and a margin of `WINDOW_MARGIN` characters,
 * so that a secret or a token run across the window's edge is whole in the margin and never shown
 * in part). A text longer than the window costs the window, not its length.
 */
export function maskBounded(s: string, secrets: readonly string[], max: number, fromEnd = false): string {
  const window = max + WINDOW_MARGIN;
  const cut = s.length > window ? (fromEnd ? s.slice(s.length - window) : s.slice(0, window)) : s;
  const masked = maskSecrets(cut, secrets);
  if (masked.length <= max) return masked;
  return fromEnd ? masked.slice(masked.length - max) : masked.slice(0, max);
}

/** How far past what is kept the masking reads: longer than any secret it knows the shape of. */
export const WINDOW_MARGIN = 64 * 1024;
