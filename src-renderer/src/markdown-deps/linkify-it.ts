/**
 * The window's stand-in for `linkify-it` (what markdown-it's `linkify: true` asks to find links in
 * plain text), bundled by the alias in `src-renderer/vite.config.ts` (docs/ui.md "Size and
 * speed"): 11 KiB and a table of top-level domains replaced by the two shapes the package
 * finds by default that `validateLink` in markdown.ts lets through (its `ftp:` and `//…` links
 * were dropped there; a bare `www.…` or `example.com` is not a link in either):
 * - `http://…` and `https://…`,
 * - an e-mail address `name@host.tld` (or `mailto:name@host.tld`), linked as `mailto:`.
 * A link ends before white space, `<`, `>` or `"`, and gives back trailing punctuation
 * (`.,:;!?»”’`), a closing bracket or quote it did not open, and a user or password before
 * the host, as the package does.
 * test/unit/ui-markdown-deps.test.ts compares it with the package on sentences of each kind.
 */

export interface LinkMatch {
  schema: string;
  index: number;
  lastIndex: number;
  raw: string;
  text: string;
  url: string;
}

// As the package reads them: a scheme not right after a letter, digit or `_` (so `xhttp://` is not a
// link); an address only at the start, after white space or one of `"(<>|`. (Each start is tried
// once, so a long word costs one pass.)
const EMAIL = String.raw`[\p{L}\p{N}_.+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+(?![\p{L}\p{N}_-])`;
const LINK = new RegExp(
  String.raw`(?<![\p{L}\p{N}_])(?:(https?:\/\/)[^\s<>"]+|(mailto:)${EMAIL})|(?<=^|[\s"(<>|｜])${EMAIL}`,
  'giu',
);
const AT_START = /^(https?:\/\/)[^\s<>"]+/i;
const TRAILING = /[.,:;!?»”’]$/;
const CLOSERS: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const QUOTE = "'";

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

/** Gives back what a sentence puts after a link: punctuation, an unopened closing bracket. */
function trim(link: string): string {
  for (;;) {
    const last = link.slice(-1);
    const opener = CLOSERS[last];
    const unopened = opener !== undefined ? count(link, opener) < count(link, last) : last === QUOTE && count(link, QUOTE) % 2 === 1;
    if (TRAILING.test(link) || unopened) link = link.slice(0, -1);
    else return link;
  }
}

function toMatch(m: RegExpExecArray): LinkMatch | null {
  let raw = trim(m[0]);
  const [, http, mailto] = m;
  if (http) {
    // A user name or password before the host is not taken in (the package's `urlAuth: false`).
    const authority = /^[^/?#]*/.exec(raw.slice(http.length))![0];
    if (authority.includes('@')) raw = http + authority.split(/[:@]/)[0];
    // A scheme with no host after it is not a link.
    if (!/[\p{L}\p{N}]/u.test(raw.slice(http.length))) return null;
    return { schema: http.slice(0, -2).toLowerCase(), index: m.index, lastIndex: m.index + raw.length, raw, text: raw, url: raw };
  }
  return { schema: 'mailto:', index: m.index, lastIndex: m.index + raw.length, raw, text: raw, url: mailto ? raw : `mailto:${raw}` };
}

export class LinkifyIt {
  /** Every link in `text`, in order. */
  match(text: string): LinkMatch[] {
    const out: LinkMatch[] = [];
    LINK.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = LINK.exec(text))) {
      const link = toMatch(m);
      if (link) out.push(link);
      // Go on after what was kept: a trimmed `)` or `.` may start nothing, but it is not skipped.
      LINK.lastIndex = link ? link.lastIndex : m.index + 1;
    }
    return out;
  }

  test(text: string): boolean {
    return this.match(text).length > 0;
  }

  pretest(text: string): boolean {
    return /:\/\/|@/.test(text);
  }

  /** A `http(s)://` link that starts `text` (markdown-it's inline rule, on seeing `://`). */
  matchAtStart(text: string): LinkMatch | null {
    const m = AT_START.exec(text);
    return m ? toMatch(m) : null;
  }
}
