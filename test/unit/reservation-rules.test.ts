import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { Budget, conflicts, covers, normalizePattern, overlaps, parsePath, parsePattern, segmentMatches } from '../../src-main/core/reservations/rules.js';

const P = (s: string) => parsePattern(normalizePattern(s));

// [a, b, do they overlap?, why]
const OVERLAP: Array<[string, string, boolean, string]> = [
  // exact vs exact
  ['src/api/routes.ts', 'src/api/routes.ts', true, 'the same file'],
  ['src/api/routes.ts', 'src/api/other.ts', false, 'two different files'],
  ['src/api', 'src/api/routes.ts', true, 'a directory (no extension) covers its files'],
  ['src/api/routes.ts', 'src/api/routes.ts.bak', false, 'a file does not cover a sibling with a longer name'],
  ['README.md', 'docs/README.md', false, 'patterns are anchored at the repository root'],
  ['./src/a.ts', '/src/a.ts', true, 'leading ./ and / are the root'],
  // exact vs glob
  ['src/**', 'src/api/routes.ts', true, 'the issue example'],
  ['src/**', 'lib/api/routes.ts', false, 'another tree'],
  ['src/*.ts', 'src/a.ts', true, 'star in a segment'],
  ['src/*.ts', 'src/a/b.ts', false, 'a star does not cross a slash, and *.ts names files'],
  ['src/*', 'src/a/b.ts', true, 'src/* may name a directory and covers what is in it'],
  ['src/*.ts', 'src/a.md', false, 'another extension'],
  ['src/', 'src/deep/x/y.ts', true, 'a trailing slash is the directory and everything in it'],
  ['**/*.ts', 'README.md', false, 'a typed glob does not meet a file of another type'],
  ['**/*.ts', 'a/b/c.ts', true, 'globstar at any depth'],
  ['src/{api,web}/*.ts', 'src/web/x.ts', true, 'braces'],
  ['src/{api,web}/*.ts', 'src/cli/x.ts', false, 'braces exclude other names'],
  ['src/[ab].ts', 'src/b.ts', true, 'character class'],
  ['src/[ab].ts', 'src/c.ts', false, 'character class excludes'],
  ['src/?.ts', 'src/x.ts', true, 'question mark'],
  ['*', '.env', true, 'dotfiles are covered (dot: true)'],
  // glob vs glob
  ['src/**', 'src/api/**', true, 'nested globstars'],
  ['src/**/*.ts', 'src/api/**', true, 'globstar then file type against a subtree'],
  ['src/**/*.ts', 'src/**/*.md', false, 'two file types never meet'],
  ['src/**/*.ts', 'lib/**', false, 'different literal bases'],
  ['**/routes.ts', 'src/**/*.ts', true, 'globstar name against globstar type'],
  ['a*/x.ts', 'b*/x.ts', false, 'literal heads disagree'],
  ['src/a*.ts', 'src/*b.ts', true, 'ab.ts is in both'],
  ['**', 'anything/at/all.txt', true, 'everything'],
  ['docs/**', '**/*.ts', true, 'docs/x.ts'],
  ['src/*/index.ts', 'src/api/*.ts', true, 'src/api/index.ts'],
  ['src/*/index.ts', 'src/api/x/*.ts', false, 'different depths with file names'],
  // case
  ['SRC/a.ts', 'src/a.ts', false, 'case-sensitive like git'],
  ['src/A*.ts', 'src/a.ts', false, 'case-sensitive globs'],
];

describe('pattern overlap', () => {
  it.each(OVERLAP)('%s vs %s -> %s (%s)', (a, b, want) => {
    expect(overlaps(P(a), P(b))).toBe(want);
    // Overlap is symmetric.
    expect(overlaps(P(b), P(a))).toBe(want);
  });
});

describe('soundness against picomatch itself', () => {
  // Independent oracle: picomatch on concrete paths (and, for patterns that may name a
  // directory, on the path's ancestors). Whenever some path is covered by both patterns,
  // overlaps() must say so: a missed conflict is the failure that matters.
  const PATHS = [
    'src/a.ts', 'src/b.ts', 'src/c.ts', 'src/x.ts', 'src/ab.ts', 'src/a.md', 'src/a/b.ts', 'src/.env', 'src/routes.ts',
    'src/api/routes.ts', 'src/api/routes.ts.bak', 'src/api/index.ts', 'src/api/other.ts', 'src/api/x/y.ts', 'src/web/x.ts', 'src/cli/x.ts',
    'src/deep/x/y.ts', 'lib/api/routes.ts', 'lib/a.ts', 'README.md', 'docs/README.md', 'docs/x.ts', 'docs/guide.md', 'a/b/c.ts',
    '.env', 'abc/x.ts', 'bcd/x.ts', 'SRC/a.ts', 'anything/at/all.txt', 'src', 'src/api',
  ];
  const oracle = (pattern: string, path: string) => {
    const parsed = P(pattern);
    const m = picomatch(parsed.pattern, { dot: true });
    if (m(path)) return true;
    if (!parsed.coversBelow) return false;
    const parts = path.split('/');
    return parts.slice(1).some((_p, i) => m(parts.slice(0, i + 1).join('/')));
  };
  const patterns = [...new Set(OVERLAP.flatMap(([a, b]) => [a, b]))];
  it(`no pair of ${patterns.length} patterns that share a sample path is reported disjoint`, () => {
    const missed: string[] = [];
    for (const a of patterns) {
      for (const b of patterns) {
        const shared = PATHS.find((p) => oracle(a, p) && oracle(b, p));
        if (shared && !overlaps(P(a), P(b))) missed.push(`${a} & ${b} (both cover ${shared})`);
      }
    }
    expect(missed).toEqual([]);
  });
});

describe('conflicts between holders', () => {
  const h = (plate: string, pattern: string, exclusive: boolean) => ({ plate, parsed: P(pattern), exclusive });
  it.each([
    ['exclusive vs exclusive', h('A', 'src/**', true), h('B', 'src/a.ts', true), true],
    ['exclusive vs shared', h('A', 'src/**', true), h('B', 'src/a.ts', false), true],
    ['shared vs exclusive', h('A', 'src/**', false), h('B', 'src/a.ts', true), true],
    ['shared reservations coexist', h('A', 'src/**', false), h('B', 'src/a.ts', false), false],
    ['a holder never conflicts with itself', h('A', 'src/**', true), h('A', 'src/a.ts', true), false],
    ['disjoint patterns', h('A', 'src/**', true), h('B', 'lib/a.ts', true), false],
  ] as Array<[string, ReturnType<typeof h>, ReturnType<typeof h>, boolean]>)('%s', (_why, a, b, want) => {
    expect(conflicts(a, b)).toBe(want);
  });
});

describe('a concrete path (the pre-commit guard, list_reservations path=)', () => {
  it.each([
    ['src/**', 'src/api/routes.ts', true],
    ['src/api', 'src/api/routes.ts', true],
    ['src/*.ts', 'src/api/routes.ts', false],
    ['src/a(1).ts', 'src/a(1).ts', true],
    ['**/*.md', 'docs/x.md', true],
    ['docs/x.md', 'docs/x.md/inner', false],
  ])('%s covers %s: %s', (pattern, path, want) => {
    expect(covers(P(pattern), parsePath(path)!)).toBe(want);
  });
});

describe('pattern validation', () => {
  it.each([
    ['', 'bad_pattern'],
    ['!src/**', 'negation_unsupported'],
    ['../outside', 'bad_pattern'],
    ['src/../x', 'bad_pattern'],
    ['src\\win.ts', 'bad_pattern'],
    ['a\u0000b', 'bad_pattern'],
    ['/', 'bad_pattern'],
    ['x'.repeat(600), 'bad_pattern'],
    ['*k'.repeat(17), 'bad_pattern'],
    [Array(65).fill('a').join('/'), 'bad_pattern'],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}', 'bad_pattern'],
    ['x'.repeat(256), 'bad_pattern'],
    ['src/ma\u200Bin.ts', 'bad_pattern'],
  ])('%j is refused (%s)', (raw, reason) => {
    expect(() => normalizePattern(raw)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason }));
  });
  it('normalizes to one canonical form', () => {
    expect(normalizePattern(' ./src//api/ ')).toBe('src/api/**');
    expect(normalizePattern('/README.md')).toBe('README.md');
  });
});

describe('our segment matcher agrees with picomatch on the subset the docs allow (issue 26 F1)', () => {
  // [!a] is left out: picomatch reads it as the class of '!' and 'a'; we negate, as git and the shell do.
  const token = fc.constantFrom('a', 'b', '.', '*', '?', '[ab]', '[^a]', '[a-b]', '{a,b}', '{ab,b*}');
  it('for random globs and names (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 6 }), fc.array(fc.constantFrom('a', 'b', '.'), { minLength: 1, maxLength: 8 }), (parts, chars) => {
        const glob = parts.join('');
        const name = chars.join('');
        // A path never has a `.` or `..` segment (refused), and picomatch never matches one.
        if (name === '.' || name === '..') return;
        // picomatch special-cases the glob `*.*` alone: it wants a character after the dot (`a.` is no
        // match, though `*.` and `b*.*` match it); git's wildmatch and bash match, and so do we.
        if (glob === '*.*' && name.endsWith('.')) {
          expect(segmentMatches(glob, name)).toBe(true);
          return;
        }
        let ours: boolean;
        try {
          ours = segmentMatches(glob, name);
        } catch (e) {
          // Over the brace bound: refused, which is the documented answer.
          expect((e as { reason?: string }).reason).toBe('bad_pattern');
          return;
        }
        // Within one segment a run of stars is one star (git's wildmatch, bash, us). picomatch agrees for
        // two, but after three or more it leaves the next `.` unescaped: `***b.` compiles to
        // `[^/]*?b.` and matches `ba`. The oracle gets the run as one star.
        expect(ours, `${glob} vs ${name}`).toBe(picomatch(glob.replace(/\*{2,}/g, '*'), { dot: true })(name));
      }),
      { numRuns: 2000 },
    );
  });

  it('a run of stars in a segment is one star, and a dot after it is a dot (a case picomatch gets wrong)', () => {
    expect(segmentMatches('***b.', 'ba')).toBe(false);
    expect(segmentMatches('***b.', 'ab.')).toBe(true);
    expect(segmentMatches('a***', 'abc')).toBe(true);
  });

  it('`**` and `*` in a path are names, not wildcards', () => {
    expect(covers(P('src/x.ts'), parsePath('**/x.ts')!)).toBe(false);
    expect(covers(P('**/x.ts'), parsePath('**/x.ts')!)).toBe(true);
    expect(covers(P('a/b'), parsePath('*')!)).toBe(false);
  });

  it('a request that needs more matching than its budget is INVALID_ARGUMENT too_complex', () => {
    const deep = (ext: string) => P(Array.from({ length: 15 }, () => '**/d').join('/') + `/*.${ext}`);
    const b = new Budget(1000);
    expect(() => {
      for (let i = 0; i < 100; i++) overlaps(deep('ts'), deep('ts'), b);
    }).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason: 'too_complex' }));
  });
});
