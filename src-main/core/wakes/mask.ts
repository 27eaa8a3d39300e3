import { ISSUED_SECRET_PREFIXES } from '../util/ids.js';

/**
 * Masking of what a human may read of a run (docs/security.md): the secrets the server gave the
 * run, and every secret shape this server issues, whoever it belongs to. A runner's output is
 * hostile, so each pass is linear in its input: 256 KiB of `eyJ-eyJ-…` must not hold the event
 * loop (the regex it replaces, `\beyJ[…]{8,}\.[…]{8,}\.[…]{8,}`, retried the rest of the run
 * from every `eyJ` in it).
 */

/** The base64url alphabet: a compact JWS is three runs of it joined by dots. */
function isB64url(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

/** A regex word character (what `\b` looks at, without the u flag). */
function isWord(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

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

/** Each part of a masked JWS has at least this many characters. */
const JWS_PART_MIN = 8;

/**
 * Masks every compact JWS (passports): three base64url parts of 8+ characters, the first
 * starting `eyJ` (a JSON header) at a word boundary, as `eyJ***`. The same matches, left to
 * right, as the regex above would give, in one pass over the runs of the alphabet: a greedy
 * part takes its whole run (a dot is not in the alphabet), so whether a run holds the start of
 * a match depends only on the two runs after it and on where in it the first `eyJ` is.
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

/** Masks every secret pattern this server issues, whoever it belongs to (docs/security.md). */
export function maskIssuedSecrets(s: string): string {
  // Issued prefixes first: a masked one (`ark_***`) breaks a JWS around it, as it always did.
  return maskCompactJws(maskIssuedPrefixes(s));
}

/** The known secrets of a run (its credential, its env values) as `***`, then every issued secret pattern. */
export function maskSecrets(s: string, secrets: readonly string[]): string {
  let t = s;
  for (const secret of secrets) if (secret) t = t.split(secret).join('***');
  return maskIssuedSecrets(t);
}
