import { invalid } from '../errors/app-error.js';
import { invisibleCodePoint } from '../util/invisible.js';

/** Bytes of one path segment and of a whole path (UTF-8), and folder depth. */
export const MAX_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 1024;
export const MAX_DEPTH = 32;

// Names Windows maps to devices whatever the extension ("nul.txt" is NUL): refused everywhere,
// because room files end up in workspaces on every platform.
const DEVICE_NAMES = /^(con|prn|aux|nul|clock\$|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i;
// Characters that are not portable in a file name (Windows reserves them; ':' also opens NTFS streams).
const NOT_PORTABLE = /[<>:"|?*]/;
const CONTROL = /[\u0000-\u001f\u007f]/;
// Half of a UTF-16 pair: it cannot be stored as UTF-8 and would come back as another name.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Invisible characters that reorder or hide text (bidi controls, zero-width and other invisible
// format characters, the soft hyphen, tag characters, variation selectors, U+2028/2029, NBSP and
// the other non-ASCII spaces): a path holding them can show as another path in the UI and in
// manifests ("invoice\u202Efdp.exe"), so such paths are refused rather than shown (util/invisible.ts).

/** True when the text holds a bidi control or an invisible (zero-width) character. */
export function hasInvisibleChars(text: string): boolean {
  return invisibleCodePoint(text) !== undefined;
}

const refuse = (why: string) => invalid(`path refused: ${why}`, 'bad_path');

/**
 * The canonical form of a room file path: NFC, '/'-separated, relative, no '.' or empty
 * segments. Anything that could escape a folder or name a device is refused rather than
 * repaired: '..', absolute paths, backslashes, drive letters, NUL and control characters,
 * device names, non-portable characters and over-long names. Messages never echo the path.
 */
export function normaliseFilePath(input: string): string {
  if (typeof input !== 'string' || input.length === 0) throw refuse('the path is empty');
  if (CONTROL.test(input)) throw refuse('it contains NUL or control characters');
  if (LONE_SURROGATE.test(input)) throw refuse('it is not valid Unicode');
  const cp = invisibleCodePoint(input);
  if (cp) throw refuse(`it contains the invisible or bidirectional character ${cp}, which can disguise it as another path`);
  if (input.includes('\\')) throw refuse('it contains a backslash; separate folders with /');
  if (/^[a-zA-Z]:/.test(input)) throw refuse('it starts with a drive letter');
  if (input.startsWith('/')) throw refuse('it is absolute; give a path relative to the room');
  const nfc = input.normalize('NFC');
  const segments = nfc.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) throw refuse('the path is empty');
  if (segments.length > MAX_DEPTH) throw refuse(`more than ${MAX_DEPTH} folders deep`);
  for (const s of segments) {
    if (s === '..') throw refuse("it contains a '..' segment");
    if (NOT_PORTABLE.test(s)) throw refuse('it contains one of < > : " | ? *');
    if (s.trim() === '') throw refuse('a segment is blank');
    if (/[. ]$/.test(s)) throw refuse('a segment ends with a dot or a space');
    const stem = s.split('.')[0]!.trim();
    if (DEVICE_NAMES.test(stem)) throw refuse('a segment is a reserved device name');
    if (Buffer.byteLength(s, 'utf8') > MAX_SEGMENT_BYTES) throw refuse(`a segment is over ${MAX_SEGMENT_BYTES} bytes`);
  }
  const out = segments.join('/');
  if (Buffer.byteLength(out, 'utf8') > MAX_PATH_BYTES) throw refuse(`the path is over ${MAX_PATH_BYTES} bytes`);
  return out;
}

/** The last segment: the file name shown beside the path. */
export function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

/** A list_files prefix: matched against normalised paths, so only its leading './' and '/' are dropped. */
export function normalisePrefix(prefix: string | undefined): string {
  if (!prefix) return '';
  if (CONTROL.test(prefix)) throw invalid('prefix refused: it contains NUL or control characters', 'bad_path');
  const cp = invisibleCodePoint(prefix);
  if (cp) throw invalid(`prefix refused: it contains the invisible or bidirectional character ${cp}`, 'bad_path');
  let p = prefix.normalize('NFC');
  while (p.startsWith('./') || p.startsWith('/')) p = p.startsWith('./') ? p.slice(2) : p.slice(1);
  return p;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** A content type as stored and served: a plain MIME type, at most 200 characters. */
export function normaliseContentType(ct: string | undefined, fallback: string): string {
  if (ct === undefined || ct.trim() === '') return fallback;
  const t = ct.trim();
  if (t.length > 200 || !MIME.test(t)) throw invalid('content_type must be a MIME type such as text/plain or application/pdf', 'bad_content_type');
  return t;
}
