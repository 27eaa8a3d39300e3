import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ISSUED_SECRET_PREFIXES, newSecret } from '../../src-main/core/util/ids.js';
import { maskIssuedSecrets, maskSecrets } from '../../src-main/core/wakes/mask.js';

// The masking as runners.ts did it before mask.ts, kept here as the oracle: the same output on
// every input is the contract; only its time (quadratic on `eyJ-eyJ-…`) had to change.
const ORACLE_ISSUED_RE = new RegExp(`\\b(${ISSUED_SECRET_PREFIXES.map((p) => p.slice(0, -1)).join('|')})_[A-Za-z0-9_-]{20,}`, 'g');
const ORACLE_JWT_RE = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
function oracle(s: string): string {
  return s.replace(ORACLE_ISSUED_RE, (_m, p: string) => `${p}_***`).replace(ORACLE_JWT_RE, 'eyJ***');
}
/** Which of the two patterns the oracle masks in s: the generators must reach both. */
function oracleMasks(s: string): { issued: boolean; jws: boolean } {
  const afterIssued = s.replace(ORACLE_ISSUED_RE, (_m, p: string) => `${p}_***`);
  return { issued: afterIssued !== s, jws: afterIssued.replace(ORACLE_JWT_RE, 'eyJ***') !== afterIssued };
}
function oracleWithSecrets(s: string, secrets: readonly string[]): string {
  let t = s;
  for (const secret of secrets) if (secret) t = t.split(secret).join('***');
  return oracle(t);
}

// Pieces that make the patterns' edges likely: prefixes, `eyJ`, parts just under and over 8
// characters, dots, dashes, underscores, word and non-word neighbours.
const PIECES = ['eyJ', 'eyJ', 'eyJ', 'ark_', 'aro_', 'art_', 'arx_', 'ark', '.', '.', '.', '-', '-', '_', 'a', 'Z', '7', 'abcdefg', 'abcdefgh', 'abcdefgh', 'Qrstuvwxyz', 'eyJabcde', 'eyJabcdefgh.', 'abcdefgh.', 'ABCDEFGHIJKLMNOPQRS', ' ', 'x', '*', '/', 'é', '\n', '"'];
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

describe('maskSecrets', () => {
  it('replaces the known secrets, then the issued patterns, as keptText did', () => {
    expect(maskSecrets('token=hunter2-value; ark_' + 'x'.repeat(30), ['hunter2-value', ''])).toBe('token=***; ark_***');
    fc.assert(
      fc.property(hostileText, fc.array(hostileText, { maxLength: 3 }), (s, secrets) => {
        expect(maskSecrets(s, secrets)).toBe(oracleWithSecrets(s, secrets));
      }),
      { numRuns: 2000 },
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
