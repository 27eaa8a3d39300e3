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

/** A run that looks random: long, mixed letters and digits, high entropy; or a long hex string. */
function looksLikeToken(run: string): boolean {
  if (PUBLIC_ID.test(run)) return false;
  if (/^[0-9a-f]{32,}$/i.test(run)) return true;
  if (run.length < 24) return false;
  return /\d/.test(run) && /[A-Za-z]/.test(run) && entropy(run) >= 3.5;
}

const CODE_LINE =
  /(?:^|\s)(?:function\s+\w+\s*\(|const\s+\w+\s*=|let\s+\w+\s*=|var\s+\w+\s*=|def\s+\w+\s*\(|class\s+\w+[\s({:]|import\s+[\w{*].*\bfrom\b|require\(|return\s+[^.]*;|=>\s*[{(]|SELECT\s+.+\s+FROM\s|INSERT\s+INTO\s|console\.log\(|#include\s*<)/i;

/** The first kind of sensitive content found in the text, or undefined when it reads as technical impact only. */
export function findSensitive(text: string): SensitiveKind | undefined {
  if (/eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/.test(text)) return 'jwt';
  if (/-----BEGIN [A-Z ]*(?:PRIVATE KEY|CERTIFICATE|OPENSSH)/.test(text)) return 'private_key';
  if (KNOWN_TOKEN.test(text)) return 'token';
  if (/\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}/i.test(text)) return 'token';
  if (/[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i.test(text)) return 'credential_url';
  if (/[?&](?:key|token|access_token|api_key|apikey|secret|password|sig|signature|code)=[^\s&]+/i.test(text)) return 'credential_url';
  if (
    /\b(?:api[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|pwd|passphrase|token|auth[_-]?token|access[_-]?token|credential|private[_-]?key)\b\s*[:=]\s*["']?[^\s"',;]{4,}/i.test(
      text,
    )
  ) {
    return 'secret_assignment';
  }
  if (/[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/.test(text)) return 'email';
  if (/(?:^|[\s"'`(=:])(?:\/(?:home|Users|root)\/[^\s/]+|~[A-Za-z0-9._-]+\/|[A-Za-z]:\\(?:Users|Documents and Settings)\\[^\s\\]+)/i.test(text)) {
    return 'user_path';
  }
  for (const run of text.match(/[A-Za-z0-9_+/=-]{24,}/g) ?? []) if (looksLikeToken(run.replace(/^[-=/]+|[-=/]+$/g, ''))) return 'token';
  if (/```|~~~/.test(text) || CODE_LINE.test(text)) return 'code_quote';
  const inline = text.match(/`[^`]*`/g) ?? [];
  if (inline.some((q) => q.length > 42)) return 'code_quote';
  const codeChars = (text.match(/[{}();<>=[\]]/g) ?? []).length;
  if (text.length >= 40 && codeChars / text.length > 0.08) return 'code_quote';
  if (/(?:^|\n)\s*>/.test(text)) return 'message_quote';
  // Double and curly quotes only: apostrophes (it's, don't) would pair up across words.
  const quotes = text.match(/"[^"]*"|“[^”]*”|‘[^’]*’/g) ?? [];
  if (quotes.some((q) => q.length > 62)) return 'message_quote';
  if ((text.match(/\n/g) ?? []).length > 3) return 'message_quote';
  return undefined;
}
