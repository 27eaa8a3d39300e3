/**
 * The window's stand-in for `punycode.js`, bundled by the alias in `src-renderer/vite.config.ts`
 * (docs/ui.md "Size and speed"). markdown-it calls it on a link's host name only: toASCII for the
 * href (the browser's URL parser does the same IDNA conversion; an ASCII host is kept as written),
 * toUnicode for the link's text, which here stays as it was typed (an `xn--` host is not shown as
 * look-alike letters).
 */
function toASCII(host: string): string {
  return /[^\0-\x7f]/.test(host) ? new URL(`http://${host}`).hostname : host;
}

function toUnicode(host: string): string {
  return host;
}

export default { toASCII, toUnicode };
