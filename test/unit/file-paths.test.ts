import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { join, resolve, sep } from 'node:path';
import { normaliseFilePath, normalisePrefix, normaliseContentType, baseName } from '../../src-main/core/files/paths.js';

const refused = (p: string) => {
  try {
    normaliseFilePath(p);
    return false;
  } catch (e: any) {
    return e.code === 'INVALID_ARGUMENT' && e.reason === 'bad_path';
  }
};

describe('normaliseFilePath', () => {
  it.each([
    ['notes/plan.md', 'notes/plan.md'],
    ['./notes/plan.md', 'notes/plan.md'],
    ['notes//plan.md', 'notes/plan.md'],
    ['notes/./plan.md', 'notes/plan.md'],
    ['notes/plan.md/', 'notes/plan.md'],
    ['Café.txt', 'Café.txt'],
    ['Cafe\u0301.txt', 'Café.txt'], // NFD to NFC
    ['.hidden', '.hidden'],
    ['a..b.txt', 'a..b.txt'],
    ['console.log', 'console.log'], // only exact device stems are refused
    ['com10', 'com10'],
    ['emoji-\u{1F600}.txt', 'emoji-\u{1F600}.txt'],
  ])('%j -> %j', (input, out) => {
    expect(normaliseFilePath(input)).toBe(out);
  });

  it.each([
    '',
    '.',
    './',
    '..',
    '../x',
    'a/../x',
    'a/..',
    '/abs',
    '//unc/share',
    'a\\b',
    '..\\x',
    'C:/x',
    'c:x',
    'a\u0000b',
    'a\nb',
    'a\u007fb',
    'half\uD800.txt',
    '\uDC00x',
    'CON',
    'con.txt',
    'Nul',
    'aux.tar.gz',
    'x/PRN',
    'COM1',
    'lpt3.txt',
    'COM¹',
    'CONIN$',
    'a:b',
    'a|b',
    'a?b',
    'a*b',
    'a<b',
    'a"b',
    'dot./x',
    'space /x',
    '   ',
    'x/' + 'a'.repeat(256),
    'é'.repeat(128), // 256 bytes in one segment
    Array.from({ length: 33 }, () => 'd').join('/'),
    Array.from({ length: 30 }, () => 'a'.repeat(40)).join('/'),
  ])('refuses %j', (p) => {
    expect(refused(p)).toBe(true);
  });

  it('never echoes the path in its message', () => {
    for (const p of ['../secret-name', 'C:/secret-name', 'secret-name/con']) {
      try {
        normaliseFilePath(p);
        expect.unreachable();
      } catch (e: any) {
        expect(e.message).not.toContain('secret-name');
      }
    }
  });

  it('property: an accepted path is canonical and stays inside any folder it is joined to', () => {
    const seg = fc.oneof(
      fc.constantFrom('..', '.', '', 'CON', 'nul.txt', 'a', 'b.txt', 'C:', '\\', '..\\..', ' ', 'x.', 'é'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(seg, { maxLength: 8 }), fc.boolean(), (segs, abs) => {
        const input = (abs ? '/' : '') + segs.join('/');
        let out: string;
        try {
          out = normaliseFilePath(input);
        } catch {
          return true;
        }
        const root = resolve('/srv/home/blobs');
        const joined = resolve(join(root, out));
        expect(joined.startsWith(root + sep)).toBe(true);
        expect(out.split('/')).not.toContain('..');
        expect(out).not.toMatch(/^\/|\\|\u0000|^[a-zA-Z]:/);
        expect(normaliseFilePath(out)).toBe(out); // idempotent
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('prefix, content type and base name', () => {
  it('prefixes drop a leading ./ or /', () => {
    expect(normalisePrefix('./src/')).toBe('src/');
    expect(normalisePrefix('/src')).toBe('src');
    expect(normalisePrefix(undefined)).toBe('');
    expect(() => normalisePrefix('a\u0000')).toThrow();
  });

  it('content types must be MIME types', () => {
    expect(normaliseContentType(undefined, 'text/plain')).toBe('text/plain');
    expect(normaliseContentType('application/pdf', 'x/y')).toBe('application/pdf');
    expect(normaliseContentType('text/markdown; charset=utf-8', 'x/y')).toBe('text/markdown; charset=utf-8');
    for (const bad of ['pdf', 'text/html\r\nx-evil: 1', 'a/b; c', '/x', 'x/'.repeat(80)]) expect(() => normaliseContentType(bad, 'x/y')).toThrow();
  });

  it('base name is the last segment', () => {
    expect(baseName('a/b/c.txt')).toBe('c.txt');
    expect(baseName('c.txt')).toBe('c.txt');
  });
});
