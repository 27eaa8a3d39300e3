/**
 * The window's stand-in for `entities` (markdown-it's HTML entity decoder), bundled by the alias in
 * `src-renderer/vite.config.ts` (docs/ui.md "Size and speed"): the package carries every HTML name
 * (23 KiB of the bundle); chat needs the ones people type. markdown-it decodes numeric entities itself
 * (`&#169;`, `&#xA9;`) and asks this for a named one: a name listed here decodes as the package
 * decodes it (test/unit/ui-markdown-deps.test.ts), any other stays as it was typed (shown as text,
 * never as markup: the renderer escapes it).
 */
const CODE_POINTS: Record<string, number> = {
  amp:38, lt:60, gt:62, quot:34, apos:39, nbsp:160, ensp:8194, emsp:8195, thinsp:8201, shy:173,
  zwj:8205, zwnj:8204, lrm:8206, rlm:8207, copy:169, reg:174, trade:8482, hellip:8230, mdash:8212,
  ndash:8211, minus:8722, lsquo:8216, rsquo:8217, sbquo:8218, ldquo:8220, rdquo:8221, bdquo:8222,
  laquo:171, raquo:187, lsaquo:8249, rsaquo:8250, bull:8226, middot:183, prime:8242, Prime:8243,
  dagger:8224, Dagger:8225, permil:8240, deg:176, plusmn:177, times:215, divide:247, micro:181,
  para:182, sect:167, not:172, iexcl:161, iquest:191, cent:162, pound:163, yen:165, euro:8364,
  curren:164, sup1:185, sup2:178, sup3:179, frac14:188, frac12:189, frac34:190, le:8804, ge:8805,
  ne:8800, asymp:8776, equiv:8801, infin:8734, sum:8721, prod:8719, radic:8730, larr:8592,
  rarr:8594, uarr:8593, darr:8595, harr:8596, lArr:8656, rArr:8658, uArr:8657, dArr:8659,
  hArr:8660, check:10003, cross:10007, star:9734, starf:9733, hearts:9829, spades:9824, clubs:9827,
  diams:9830, loz:9674,
};

/** Decodes the listed named entities (`&copy;`) in `text`; every other `&…;` is left as it is. */
export function decodeHTMLStrict(text: string): string {
  return text.replace(/&([A-Za-z][A-Za-z0-9]*);/g, (entity, name: string) => {
    const code = Object.hasOwn(CODE_POINTS, name) ? CODE_POINTS[name] : undefined;
    return code === undefined ? entity : String.fromCodePoint(code);
  });
}

/** The names decoded here (for the test that compares them with the package's). */
export const NAMES = Object.keys(CODE_POINTS);
