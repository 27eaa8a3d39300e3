/**
 * Characters that do not show, or that change how the text around them shows: controls,
 * format characters (zero-width, bidi controls, the soft hyphen, Unicode tag characters
 * U+E0000–E007F), variation selectors, the line and paragraph separators U+2028/U+2029,
 * every space but the ASCII one (NBSP and friends), Hangul fillers and lone surrogates. A
 * name holding one can show as another name (docs/security.md "Invisible characters").
 */
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180F\u3164\uFE00-\uFE0F\uFFA0\uFFF9-\uFFFB\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;

/** The first invisible character of the text as `U+XXXX`, or undefined when there is none. */
export function invisibleCodePoint(text: string): string | undefined {
  const m = INVISIBLE.exec(text);
  if (!m) return undefined;
  return `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
