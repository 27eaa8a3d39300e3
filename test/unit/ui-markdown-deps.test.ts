import { describe, it, expect } from 'vitest';
import MarkdownIt from 'markdown-it';
import * as uc from '../../src-renderer/src/markdown-deps/uc-micro.js';
import { decodeHTMLStrict, NAMES } from '../../src-renderer/src/markdown-deps/entities.js';
import { LinkifyIt } from '../../src-renderer/src/markdown-deps/linkify-it.js';
import punycode from '../../src-renderer/src/markdown-deps/punycode.js';

// Outside the window's bundle, markdown-it runs on the packages themselves: they are reached
// through it (its utils, its linkify, its link normalizer), not imported as undeclared dependencies.
const real = new MarkdownIt();
const ucPackage = real.utils.lib.ucmicro as { P: RegExp; S: RegExp };
const decodePackage = (entity: string) => real.utils.unescapeAll(entity);
const LinkifyPackage = real.linkify.constructor as new () => typeof real.linkify;
const toASCIIPackage = (host: string) => real.normalizeLink(`http://${host}/`).slice('http://'.length, -1);

/**
 * The window bundles small stand-ins for markdown-it's dependencies (src-renderer/vite.config.ts,
 * docs/ui.md "Size and speed"); the packages themselves are the oracles here, and where a
 * stand-in does less, the test says what.
 */
describe("markdown-it's dependencies in the window", () => {
  it('uc.micro: punctuation and symbols agree on every UTF-16 unit', () => {
    const differ: number[] = [];
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c);
      if (uc.P.test(ch) !== ucPackage.P.test(ch) || uc.S.test(ch) !== ucPackage.S.test(ch)) differ.push(c);
    }
    expect(differ).toEqual([]);
  });

  it('entities: every listed name decodes as the package does; another name stays as typed', () => {
    expect(NAMES.length).toBeGreaterThan(50);
    for (const name of NAMES) expect(decodeHTMLStrict(`&${name};`), name).toBe(decodePackage(`&${name};`));
    expect(decodeHTMLStrict('&Aring;')).toBe('&Aring;');
    expect(decodeHTMLStrict('&constructor;&toString;')).toBe('&constructor;&toString;');
    expect(decodeHTMLStrict('a &amp; b &copy')).toBe('a & b &copy');
  });

  it('punycode: a host becomes the ASCII the package gives; an ASCII host is kept', () => {
    for (const host of ['пример.рф', 'bücher.example', 'example.com', 'Example.COM', 'xn--e1afmkfd.xn--p1ai'])
      expect(punycode.toASCII(host), host).toBe(toASCIIPackage(host));
    expect(punycode.toUnicode('xn--e1afmkfd.xn--p1ai')).toBe('xn--e1afmkfd.xn--p1ai');
  });

  const pick = (m: { index: number; lastIndex: number; url: string; text: string; schema: string }) => ({ index: m.index, lastIndex: m.lastIndex, url: m.url, text: m.text, schema: m.schema });
  const same = [
    'see https://example.com/docs.',
    'at https://example.com/a_(b) and (https://example.com/x)',
    'go to http://example.com/path?q=1&r=2#top, then stop',
    'www.example.com/page! and example.com, README.md stay text',
    'mail ada@example.com or mailto:bob@example.org.',
    'a list [https://example.com/a] "https://example.com/q"',
    'nothing here, not even @ada or @builder(ada) or v1.2',
    'xhttp://nope.com and https:// alone',
    'ada.l@sub.example.co.uk, x@y and a@b.c; user+tag@example.com, foo@bar.com. a@b.com@c.com',
    "(see https://example.com/a). https://example.com/'quoted' «https://example.com»",
    'https://пример.рф/x HTTPS://EXAMPLE.COM/A https://example.com/path* https://example.com/a.b.c...',
    'https://example.com:8080/a?b=c;d https://example.com/{a} https://example.com/a] http://127.0.0.1:7337/v1',
  ];

  it('linkify: http(s) and e-mail links are found where the package finds them', () => {
    const ours = new LinkifyIt();
    const theirs = new LinkifyPackage();
    for (const text of same) expect(ours.match(text).map(pick), text).toEqual((theirs.match(text) ?? []).map(pick));
    expect(ours.matchAtStart('https://example.com/x) tail')).toMatchObject({ index: 0, url: 'https://example.com/x' });
    expect(ours.matchAtStart('say https://example.com')).toBeNull();
  });

  it('linkify: markdown-it renders the same links with the stand-in', () => {
    const render = (linkify: unknown, text: string) => {
      const md = new MarkdownIt({ html: false, linkify: true, breaks: true });
      md.validateLink = (url: string) => /^(https?:\/\/|mailto:)/i.test(url.trim());
      (md as unknown as { linkify: unknown }).linkify = linkify;
      return md.render(text);
    };
    for (const text of [...same, 'emphasis *around https://example.com/a_b_c* stays', '`https://example.com` in code', 'https://user:pw@example.com/'])
      expect(render(new LinkifyIt(), text), text).toBe(render(new LinkifyPackage(), text));
  });

  it('linkify: a long word without a link is scanned once (no backtracking per letter)', () => {
    const word = 'a'.repeat(200_000);
    expect(new LinkifyIt().match(`${word} ${word}@`)).toEqual([]);
  });
});
