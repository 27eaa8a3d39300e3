import { describe, it, expect } from 'vitest';
import { conflicts, covers, normalizePattern, overlaps, parsePath, parsePattern } from '../../src-main/core/reservations/rules.js';

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

describe('conflicts between holders', () => {
  const h = (plate: string, pattern: string, exclusive: boolean) => ({ plate, parsed: P(pattern), exclusive });
  it.each([
    [h('A', 'src/**', true), h('B', 'src/a.ts', true), true, 'exclusive vs exclusive'],
    [h('A', 'src/**', true), h('B', 'src/a.ts', false), true, 'exclusive vs shared'],
    [h('A', 'src/**', false), h('B', 'src/a.ts', true), true, 'shared vs exclusive'],
    [h('A', 'src/**', false), h('B', 'src/a.ts', false), false, 'shared reservations coexist'],
    [h('A', 'src/**', true), h('A', 'src/a.ts', true), false, 'a holder never conflicts with itself'],
    [h('A', 'src/**', true), h('B', 'lib/a.ts', true), false, 'disjoint patterns'],
  ] as const)('%#: %s', (a, b, want) => {
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
  ])('%j is refused (%s)', (raw, reason) => {
    expect(() => normalizePattern(raw)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', reason }));
  });
  it('normalizes to one canonical form', () => {
    expect(normalizePattern(' ./src//api/ ')).toBe('src/api/**');
    expect(normalizePattern('/README.md')).toBe('README.md');
  });
});
