/**
 * Recognises feedback text that looks sensitive: secrets and tokens, keys, JWTs, email
 * addresses, file paths that carry a user name, and long code or message quotes. A note
 * or issue text may describe technical impact only, so anything that looks like it quotes
 * content or carries a credential is refused (and never echoed back).
 */

export type SensitiveKind =
  | 'jwt'
  | 'private_key'
  | 'token'
  | 'secret_assignment'
  | 'credential_url'
  | 'email'
  | 'user_path'
  | 'code_quote'
  | 'message_quote';

const DESCRIBE: Record<SensitiveKind, string> = {
  jwt: 'a JWT or passport',
  private_key: 'a private key',
  token: 'a token or key',
  secret_assignment: 'a secret assigned to a name (key=..., password: ...)',
  credential_url: 'a URL that carries credentials',
  email: 'an email address',
  user_path: 'a file path that names a user',
  code_quote: 'quoted code',
  message_quote: 'a quoted message or file content',
};

export function describeSensitive(kind: SensitiveKind): string {
  return DESCRIBE[kind];
}

/** Well-known secret formats, ours first (ark_ credentials, aro_ owner tokens). */
const KNOWN_TOKEN =
  /\b(?:ark_|aro_|sk-|sk_(?:live|test)_|rk_(?:live|test)_|pk_(?:live|test)_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-|npm_|hf_|AKIA|ASIA|AIza)[A-Za-z0-9_-]{8,}/;

/** Public ids of this service (room_…, task_…, err_…): not secrets, whatever their length. */
const PUBLIC_ID = /^(?:room|task|msg|file|own|agt|cred|dev|err|req|rep|tfb|pfb|wake|mnt)_[0-9a-z]{26}$/i;

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Strips leading and trailing '-', '=' and '/' (a loop: the regex form backtracks quadratically). */
function trimEdges(run: string): string {
  let i = 0;
  let j = run.length;
  const edge = (c: string) => c === '-' || c === '=' || c === '/';
  while (i < j && edge(run[i]!)) i++;
  while (j > i && edge(run[j - 1]!)) j--;
  return run.slice(i, j);
}

/** A run that looks random: long, mixed letters and digits, high entropy; or a long hex string. */
function looksLikeToken(run: string): boolean {
  if (PUBLIC_ID.test(run)) return false;
  if (/^[0-9a-f]{32,}$/i.test(run)) return true;
  if (run.length < 24) return false;
  return /\d/.test(run) && /[A-Za-z]/.test(run) && entropy(run) >= 3.5;
}

/*
 * Every check below runs in time linear in the text (docs/security.md, item 4). Patterns
 * whose regular-expression form backtracks (a quantifier followed by an overlapping one, or a
 * match that may start at every character of a long run) are written as scans instead: find
 * an anchor with a plain search, then check what follows it once.
 */

// Code lines whose every alternative is linear: a fixed keyword, then runs that cannot overlap.
const CODE_LINE =
  /(?:^|\s)(?:function\s+\w+\s*\(|const\s+\w+\s*=|let\s+\w+\s*=|var\s+\w+\s*=|def\s+\w+\s*\(|class\s+\w+[\s({:]|require\(|=>\s*[{(]|INSERT\s+INTO\s|console\.log\(|#include\s*<)/i;

/**
 * Where the search for `keyword` resumes after the lines up to `end` were searched from an
 * earlier occurrence: at a later occurrence that ends its line (its \s+ reaches the next line,
 * so it has room the earlier one had not), else at `end`.
 */
function resumeAt(text: string, from: number, end: number, keyword: RegExp): number {
  const m = keyword.exec(text.slice(from + 1, end));
  return m ? from + 1 + m.index : end;
}

/**
 * `import <name> … from`: the pattern's \s+ may cross lines, its .* not. For each line, the
 * earliest name character on it leaves the most room, so that line's rest is searched once.
 */
function hasImportFrom(text: string): boolean {
  const first = /(?:^|\s)import\s+[\w{*]/gi;
  for (let m = first.exec(text); m; m = first.exec(text)) {
    const at = m.index + m[0].length - 1;
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    // From the name character on: "from" must come after it, at a word boundary.
    if (/[^]\bfrom\b/i.test(text.slice(at, end))) return true;
    first.lastIndex = resumeAt(text, m.index, Math.max(end, first.lastIndex), /\simport[^\S\n]*$/i);
  }
  return false;
}

/**
 * `SELECT <text on one line> FROM `: the pattern's \s+ may cross lines, its .+ not. The
 * earliest start of the .+ on a line leaves the most room, so each line is searched once;
 * FROM may open a later line when only whitespace lies between.
 */
function hasSelectFrom(text: string): boolean {
  const first = /(?:^|\s)SELECT\s/gi;
  for (let m = first.exec(text); m; m = first.exec(text)) {
    let a = m.index + m[0].length;
    let end = a;
    while (a < text.length) {
      if (text[a] === '\n') {
        a++;
        continue;
      }
      end = text.indexOf('\n', a);
      if (end < 0) end = text.length;
      if (/[^]\sFROM\s/i.test(text.slice(a, end + 1))) return true;
      if (end < text.length) {
        const ws = /\s*/y;
        ws.lastIndex = end;
        ws.exec(text);
        if (/^FROM\s/i.test(text.slice(ws.lastIndex, ws.lastIndex + 5))) return true;
      }
      // A blank line may still belong to the \s+ after SELECT: the .+ can start on the next one.
      if (!/^\s*$/.test(text.slice(a, end))) break;
      a = end + 1;
    }
    first.lastIndex = resumeAt(text, m.index, Math.max(end, first.lastIndex), /\sSELECT[^\S\n]*$/i);
  }
  return false;
}

/** `return <no dot>… ;`: some "return" whose next '.' or ';' is a ';'. */
function hasReturnStatement(text: string): boolean {
  const re = /(?:^|\s)return\s/gi;
  let stopAt = -1;
  let stop = '';
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const from = m.index + m[0].length;
    if (from > stopAt) {
      const r = /[.;]/g;
      r.lastIndex = from;
      const hit = r.exec(text);
      if (!hit) return false;
      stopAt = hit.index;
      stop = hit[0];
    }
    if (stop === ';') return true;
    re.lastIndex = stopAt + 1;
  }
  return false;
}

function looksLikeCodeLine(text: string): boolean {
  if (CODE_LINE.test(text)) return true;
  return hasSelectFrom(text) || hasImportFrom(text) || hasReturnStatement(text);
}

const TOKEN_CHAR = /[A-Za-z0-9_-]/;

/** A JWT: "eyJ" + 5 or more token characters, '.', 5 or more, '.', within one dotted run. */
function hasJwt(text: string): boolean {
  // Whole runs first (each character is read once), then only those holding "eyJ".
  for (const run of text.match(/[A-Za-z0-9_.-]+/g) ?? []) {
    if (!run.includes('eyJ')) continue;
    const parts = run.split('.');
    for (let k = 0; k + 2 < parts.length; k++) {
      const at = parts[k]!.indexOf('eyJ');
      if (at >= 0 && parts[k]!.length - at - 3 >= 5 && parts[k + 1]!.length >= 5) return true;
    }
  }
  return false;
}

/** scheme://user:password@ — found from each "://" (scheme backwards, credentials forwards). */
function hasCredentialUrl(text: string): boolean {
  for (let i = text.indexOf('://'); i >= 0; i = text.indexOf('://', i + 3)) {
    let s = i;
    let letter = false;
    while (s > 0 && /[a-z0-9+.-]/i.test(text[s - 1]!)) {
      s--;
      if (/[a-z]/i.test(text[s]!)) letter = true;
    }
    if (!letter) continue;
    let j = i + 3;
    const user = j;
    while (j < text.length && !/[\s/:@]/.test(text[j]!)) j++;
    if (j === user || text[j] !== ':') continue;
    const pass = ++j;
    while (j < text.length && !/[\s/@]/.test(text[j]!)) j++;
    if (j > pass && text[j] === '@') return true;
  }
  return false;
}

/** local@domain.tld — found from each '@' (one local character before, the domain after). */
function hasEmail(text: string): boolean {
  for (let i = text.indexOf('@'); i >= 0; i = text.indexOf('@', i + 1)) {
    if (i === 0 || !/[A-Za-z0-9._%+-]/.test(text[i - 1]!)) continue;
    // The domain: segments of [A-Za-z0-9-] joined by single dots, then '.' and two letters.
    let j = i + 1;
    if (j >= text.length || !TOKEN_CHAR.test(text[j]!) || text[j] === '_') continue;
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (c === '.') {
        if (text[j - 1] === '.') break;
        if (/[A-Za-z]/.test(text[j + 1] ?? '') && /[A-Za-z]/.test(text[j + 2] ?? '')) return true;
      } else if (!/[A-Za-z0-9-]/.test(c)) {
        break;
      }
    }
  }
  return false;
}

/** A quote of more than `max` characters (with its marks) between `open` and `close`. */
function hasLongQuote(text: string, open: string, close: string, max: number): boolean {
  let i = text.indexOf(open);
  while (i >= 0) {
    const end = text.indexOf(close, i + 1);
    if (end < 0) return false;
    if (end - i + 1 > max) return true;
    i = text.indexOf(open, end + 1);
  }
  return false;
}

/** The first kind of sensitive content found in the text, or undefined when it reads as technical impact only. */
export function findSensitive(text: string): SensitiveKind | undefined {
  if (hasJwt(text)) return 'jwt';
  if (/-----BEGIN [A-Z ]*(?:PRIVATE KEY|CERTIFICATE|OPENSSH)/.test(text)) return 'private_key';
  if (KNOWN_TOKEN.test(text)) return 'token';
  if (/\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/i.test(text)) return 'token';
  if (hasCredentialUrl(text)) return 'credential_url';
  if (/[?&](?:key|token|access_token|api_key|apikey|secret|password|sig|signature|code)=[^\s&]+/i.test(text)) return 'credential_url';
  if (
    /\b(?:api[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|pwd|passphrase|token|auth[_-]?token|access[_-]?token|credential|private[_-]?key)\b\s*[:=]\s*["']?[^\s"',;]{4,}/i.test(
      text,
    )
  ) {
    return 'secret_assignment';
  }
  if (hasEmail(text)) return 'email';
  if (/(?:^|[\s"'`(=:])(?:\/(?:home|Users|root)\/[^\s/]+|~[A-Za-z0-9._-]+\/|[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\s\\]+)/i.test(text)) {
    return 'user_path';
  }
  for (const run of text.match(/[A-Za-z0-9_+/=-]{24,}/g) ?? []) if (looksLikeToken(trimEdges(run))) return 'token';
  if (/```|~~~/.test(text) || looksLikeCodeLine(text)) return 'code_quote';
  if (hasLongQuote(text, '`', '`', 42)) return 'code_quote';
  const codeChars = (text.match(/[{}();<>=[\]]/g) ?? []).length;
  if (text.length >= 40 && codeChars / text.length > 0.08) return 'code_quote';
  // Horizontal space only: \s* would rescan every following blank line from each newline.
  if (/(?:^|\n)[^\S\n]*>/.test(text)) return 'message_quote';
  // Double and curly quotes only: apostrophes (it's, don't) would pair up across words.
  if (hasLongQuote(text, '"', '"', 62) || hasLongQuote(text, '“', '”', 62) || hasLongQuote(text, '‘', '’', 62)) return 'message_quote';
  if ((text.match(/\n/g) ?? []).length > 3) return 'message_quote';
  return undefined;
}
