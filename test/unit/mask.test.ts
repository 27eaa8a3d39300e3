import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ISSUED_SECRET_PREFIXES, newSecret } from '../../src-main/core/util/ids.js';
import { maskIssuedSecrets, maskSecrets, maskBounded, SecretMasker } from '../../src-main/core/wakes/mask.js';
import { maskUrlUserinfo } from '../../src-main/core/util/secret-mask.js';

// The masking as it was done before util/secret-mask.ts, kept here as the oracle: the same output
// on every input is the contract; only its time (quadratic on `eyJ-eyJ-…` and on `a.a.a.…`) had
// to change. The issued-secret and JWS patterns are the output tails' (runners.ts); the bearer,
// `key=` and URL ones are those of the doctor's report (hosts/connect.ts) and git's words
// (worktrees/merge.ts), which now go through the same scanner.
const ORACLE_ISSUED_RE = new RegExp(`\\b(${ISSUED_SECRET_PREFIXES.map((p) => p.slice(0, -1)).join('|')})_[A-Za-z0-9_-]{20,}`, 'g');
const ORACLE_JWT_RE = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const ORACLE_BEARER_RE = /(Bearer\s+)\S+/gi;
const ORACLE_KEY_RE = /([?&]key=)[^&\s"']+/g;
const ORACLE_USERINFO_RE = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi;
function oracleForms(s: string): string {
  return s.replace(ORACLE_BEARER_RE, '$1***').replace(ORACLE_KEY_RE, '$1***').replace(ORACLE_USERINFO_RE, '$1***@');
}
function oracle(s: string): string {
  return oracleForms(s)
    .replace(ORACLE_ISSUED_RE, (_m, p: string) => `${p}_***`)
    .replace(ORACLE_JWT_RE, 'eyJ***');
}
/** Which of the patterns the oracle masks in s: the generators must reach each. */
function oracleMasks(s: string): { forms: boolean; issued: boolean; jws: boolean } {
  const afterForms = oracleForms(s);
  const afterIssued = afterForms.replace(ORACLE_ISSUED_RE, (_m, p: string) => `${p}_***`);
  return { forms: afterForms !== s, issued: afterIssued !== afterForms, jws: afterIssued.replace(ORACLE_JWT_RE, 'eyJ***') !== afterIssued };
}
/** The old known-secret pass: each secret split out in turn. */
function splitJoin(s: string, secrets: readonly string[]): string {
  let t = s;
  for (const secret of secrets) if (secret) t = t.split(secret).join('***');
  return t;
}
/**
 * The known-secret pass as specified, done the slow way: at each end position the longest secret
 * ending there; an occurrence overlapping the interval being grown joins it, one only touching it
 * starts a new one. (The automaton must give exactly this.)
 */
function unionMask(s: string, secrets: readonly string[]): string {
  const list = secrets.filter(Boolean);
  let out = '';
  let copied = 0;
  let from = -1;
  let to = -1;
  for (let i = 0; i < s.length; i++) {
    let len = 0;
    for (const x of list) if (x.length > len && i + 1 >= x.length && s.startsWith(x, i + 1 - x.length)) len = x.length;
    if (!len) continue;
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
  return out + s.slice(copied);
}
/** Do two occurrences of the secrets share a character? */
function overlapping(s: string, secrets: readonly string[]): boolean {
  const spans: [number, number][] = [];
  for (const x of secrets) if (x) for (let at = s.indexOf(x); at >= 0; at = s.indexOf(x, at + 1)) spans.push([at, at + x.length]);
  spans.sort((a, b) => a[0] - b[0]);
  for (let k = 1; k < spans.length; k++) if (spans[k]![0] < spans[k - 1]![1]) return true;
  return false;
}

// Pieces that make the patterns' edges likely: prefixes, `eyJ`, parts just under and over 8
// characters, dots, dashes, underscores, word and non-word neighbours.
const PIECES = ['eyJ', 'eyJ', 'eyJ', 'ark_', 'aro_', 'art_', 'arx_', 'ark', '.', '.', '.', '-', '-', '_', 'a', 'Z', '7', 'abcdefg', 'abcdefgh', 'abcdefgh', 'Qrstuvwxyz', 'eyJabcde', 'eyJabcdefgh.', 'abcdefgh.', 'ABCDEFGHIJKLMNOPQRS', ' ', 'x', '*', '/', 'é', '\n', '"'];
// The credential forms' edges: bearer words in any case, spaces, `key=` after `?`/`&` or not, schemes, `@`, quotes.
const FORM_PIECES = [...PIECES, 'Bearer', 'bearer ', 'BEARER\t', ' ', '\u00a0', '?key=', '&key=', 'key=', '?', '&', "'", 'https://', 'a://', '://', ':', '@', 'user:pw@', 'a.b', '+', 'x-y'];
const formText = fc.array(fc.constantFrom(...FORM_PIECES), { maxLength: 40 }).map((a) => a.join(''));
const hostileText = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((a) => a.join(''));

describe('maskIssuedSecrets', () => {
  it('masks issued prefixes and compact JWS as before', () => {
    const cred = newSecret('ark_');
    const jws = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhZ3RfMSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    expect(maskIssuedSecrets(`key ${cred} and ${jws}!`)).toBe('key ark_*** and eyJ***!');
    // Too short, or not at a word boundary: left alone.
    expect(maskIssuedSecrets('ark_short eyJabc.defghijk.lmnopqrs xark_aaaaaaaaaaaaaaaaaaaaaaaa')).toBe('ark_short eyJabc.defghijk.lmnopqrs xark_aaaaaaaaaaaaaaaaaaaaaaaa');
    // A `-` is a word boundary; the first `eyJ` of a run that leaves 8+ characters wins.
    expect(maskIssuedSecrets('ab-eyJ12345678.abcdefgh.ABCDEFGH.tail')).toBe('ab-eyJ***.tail');
    expect(maskIssuedSecrets('')).toBe('');
  });

  it('gives the old regexes’ output on generated strings', () => {
    const reached = { issued: 0, jws: 0 };
    fc.assert(
      fc.property(hostileText, (s) => {
        const want = oracle(s);
        const masks = oracleMasks(s);
        if (masks.issued) reached.issued++;
        if (masks.jws) reached.jws++;
        expect(maskIssuedSecrets(s)).toBe(want);
      }),
      { numRuns: 5000 },
    );
    // The generator must reach the interesting cases, or the comparison proves little.
    expect(reached.issued).toBeGreaterThan(40);
    expect(reached.jws).toBeGreaterThan(5);
  });

  it('gives the old output on generated JWS-like strings (runs of 6 to 12 characters between dots)', () => {
    const part = fc.array(fc.constantFrom('a', '-', '_', 'eyJ', 'Q'), { minLength: 2, maxLength: 10 }).map((a) => a.join(''));
    const jwsLike = fc.array(fc.tuple(part, fc.constantFrom('.', '.', ' ', '-', 'ark_')), { maxLength: 8 }).map((a) => a.flat().join(''));
    let reached = 0;
    fc.assert(
      fc.property(jwsLike, (s) => {
        const want = oracle(s);
        if (oracleMasks(s).jws) reached++;
        expect(maskIssuedSecrets(s)).toBe(want);
      }),
      { numRuns: 5000 },
    );
    expect(reached).toBeGreaterThan(100);
  });

  it('masks 256 KiB of adversarial input, in time linear in its size', () => {
    const shapes: [string, (n: number) => string][] = [
      ['eyJ- repeated', (n) => 'eyJ-'.repeat(n / 4)],
      ['eyJ parts and dots', (n) => 'eyJaaaaaaaa.'.repeat(n / 12)],
      ['eyJ run then a short part', (n) => 'eyJ-'.repeat(n / 4) + '.abcdefgh.abc'],
      ['an issued prefix and dashes', (n) => 'ark_' + '-'.repeat(n - 4)],
      ['issued prefixes one after another', (n) => 'ark_-'.repeat(n / 5)],
    ];
    for (const [name, make] of shapes) {
      // Small sizes checked against the oracle (at 256 KiB it would take seconds to answer).
      const sample = make(1200);
      expect(maskIssuedSecrets(sample), name).toBe(oracle(sample));
      // 4 KiB against 16 KiB first, so that quadratic work fails here rather than runs for minutes.
      for (const n of [4 * 1024, 64 * 1024]) {
        const small = make(n);
        const large = make(4 * n);
        expect(large.length, name).toBeGreaterThanOrEqual(4 * n - 16);
        const ratio = timeRatio(() => maskIssuedSecrets(small), () => maskIssuedSecrets(large));
        expect(ratio, `${name}: ${(4 * n) / 1024} KiB took ${ratio.toFixed(1)}x the time of ${n / 1024} KiB`).toBeLessThan(10);
      }
    }
    expect(maskIssuedSecrets('eyJ-'.repeat(65536))).toBe('eyJ-'.repeat(65536));
    expect(maskIssuedSecrets('eyJaaaaaaaa.'.repeat(3 * 7000))).toBe('eyJ***.'.repeat(7000));
    expect(maskIssuedSecrets('ark_' + '-'.repeat(256 * 1024))).toBe('ark_***');
  });
});

describe('credential forms (bearer, key=, a URL’s user:password)', () => {
  it('gives the old regexes’ output on generated strings', () => {
    const reached = { forms: 0 };
    fc.assert(
      fc.property(formText, (s) => {
        if (oracleMasks(s).forms) reached.forms++;
        expect(maskIssuedSecrets(s)).toBe(oracle(s));
      }),
      { numRuns: 8000 },
    );
    expect(reached.forms).toBeGreaterThan(500);
    expect(maskIssuedSecrets('curl -H "Authorization: Bearer sk-live-123" https://bob:hunter2@example.invalid/x?key=abc&b=1')).toBe(
      // The old bearer pattern takes the token to the next space, the closing quote with it.
      'curl -H "Authorization: Bearer *** https://***@example.invalid/x?key=***&b=1',
    );
  });

  it('masks adversarial input in time linear in its size (the URL pattern took 21 s on 64 KiB of a.a.…)', () => {
    const shapes: [string, (n: number) => string][] = [
      ['a. repeated (schemes that never end)', (n) => 'a.'.repeat(n / 2)],
      ['a:// then no @', (n) => 'a://' + 'x'.repeat(n - 4)],
      ['schemes and colons', (n) => 'a://b:'.repeat(n / 6)],
      ['Bearer repeated', (n) => 'Bearer '.repeat(n / 7)],
      ['Bearer then spaces', (n) => 'Bearer' + ' '.repeat(n - 6)],
      ['key= repeated', (n) => '?key='.repeat(n / 5)],
    ];
    for (const [name, make] of shapes) {
      const sample = make(1200);
      expect(maskIssuedSecrets(sample), name).toBe(oracle(sample));
      const small = make(16 * 1024);
      const large = make(64 * 1024);
      {
        const ratio = timeRatio(() => maskIssuedSecrets(small), () => maskIssuedSecrets(large));
        const n = 16 * 1024;
        expect(ratio, `${name}: ${(4 * n) / 1024} KiB took ${ratio.toFixed(1)}x the time of ${n / 1024} KiB`).toBeLessThan(10);
      }
    }
    expect(maskUrlUserinfo('a.'.repeat(128 * 1024))).toBe('a.'.repeat(128 * 1024));
  });
});

describe('maskSecrets', () => {
  it('replaces the known secrets, then the other shapes, as keptText did where no two secrets overlap', () => {
    expect(maskSecrets('token=hunter2-value; ark_' + 'x'.repeat(30), ['hunter2-value', ''])).toBe('token=***; ark_***');
    let compared = 0;
    fc.assert(
      fc.property(hostileText, fc.array(hostileText, { maxLength: 3 }), (s, secrets) => {
        // The automaton is exactly the union pass, on every input.
        expect(maskSecrets(s, secrets)).toBe(maskIssuedSecrets(unionMask(s, secrets)));
        // Where no two occurrences share a character, that is what splitting gave. Not for a secret with
        // a `*` in it: splitting re-read its own output, where such a secret can match the `***` an
        // earlier one left ("abcdefgh." with ["abcdefgh", "*"] gave "*********."); the scanner reads the
        // text once, as it was printed.
        if (!overlapping(s, secrets) && !secrets.some((x) => x.includes('*'))) {
          compared++;
          expect(maskSecrets(s, secrets)).toBe(oracle(splitJoin(s, secrets)));
        }
      }),
      { numRuns: 3000 },
    );
    expect(compared).toBeGreaterThan(1000);
  });

  it('masks overlapping secrets whole (splitting one first left part of the other shown)', () => {
    // Split-join with the shorter first masked "abc" and left "def123" of the longer one.
    expect(maskSecrets('xx abcdef123 yy', ['xxabc', 'abc', 'cdef123'])).toBe('xx *** yy');
    expect(splitJoin('xx abcdef123 yy', ['abc', 'cdef123'])).toBe('xx ***def123 yy');
    expect(maskSecrets('secretsecret', ['secret'])).toBe('******');
    expect(maskSecrets('aaaa', ['aaa'])).toBe('***');
  });

  it('the automaton over many long secrets reads each character once: 4x the text, about 4x the time', () => {
    const secrets = Array.from({ length: 200 }, (_, k) => 'a'.repeat(200) + String(k).padStart(3, '0'));
    const m = new SecretMasker(secrets);
    const text = (n: number) => 'a'.repeat(n);
    expect(m.mask(`${'a'.repeat(500)}007`)).toBe(`${'a'.repeat(300)}***`);
    const small = text(16 * 1024);
    const large = text(64 * 1024);
    const ratio = timeRatio(() => m.mask(small), () => m.mask(large));
    expect(ratio).toBeLessThan(10);
  });

  it('maskBounded masks only a window, the same as masking all when no secret crosses its margin', () => {
    const cred = newSecret('ark_');
    const long = `${'x '.repeat(300_000)}${cred} env-VALUE-1 tail`;
    expect(maskBounded(long, ['env-VALUE-1'], 40, true)).toBe(maskSecrets(long, ['env-VALUE-1']).slice(-40));
    expect(maskBounded(long, ['env-VALUE-1'], 40, true)).toBe(`${'x '.repeat(12)}ark_*** *** tail`);
    expect(maskBounded(`${cred} ${'y'.repeat(300_000)}`, [], 20)).toBe('ark_*** yyyyyyyyyyyy');
    fc.assert(
      fc.property(fc.array(hostileText, { maxLength: 2000 }), fc.array(hostileText, { maxLength: 2 }), fc.boolean(), (parts, secrets, fromEnd) => {
        const s = parts.join(' ');
        const all = maskSecrets(s, secrets);
        expect(maskBounded(s, secrets, 300, fromEnd)).toBe(all.length <= 300 ? all : fromEnd ? all.slice(-300) : all.slice(0, 300));
      }),
      { numRuns: 40 },
    );
  });
});

/**
 * How much longer `large` takes than `small`, in CPU time of this process (on a busy machine wall
 * time also counts the other processes' turns, which a longer run gets more of): the least of
 * interleaved rounds of each, over calls repeated to some 10 ms; the best of three tries, as
 * linear work (4x) rarely and quadratic work (16x) never comes under 10x.
 */
function timeRatio(small: () => unknown, large: () => unknown): number {
  const cpu = (f: () => unknown, reps: number) => {
    const start = process.cpuUsage();
    for (let i = 0; i < reps; i++) f();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  small();
  large();
  let reps = 1;
  while (cpu(small, reps) < 10_000 && reps < 1 << 20) reps *= 2;
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio >= 10; attempt++) {
    let bestSmall = Infinity;
    let bestLarge = Infinity;
    for (let round = 0; round < 5; round++) {
      bestSmall = Math.min(bestSmall, cpu(small, reps));
      bestLarge = Math.min(bestLarge, cpu(large, reps));
    }
    ratio = Math.min(ratio, bestLarge / Math.max(bestSmall, 1));
  }
  return ratio;
}
