import { invalid } from '../errors/app-error.js';

/**
 * Opaque page cursors: the sort key of the last item a page showed, as base64url JSON.
 * Keyset paging (not offsets) so that inserts and deletes between two pages neither skip
 * nor repeat the items that were there all along.
 */
export function encodeCursor(key: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The key of a cursor, checked by `valid`; anything else is INVALID_ARGUMENT (never a 500). */
export function decodeCursor<T extends unknown[]>(cursor: string, valid: (key: unknown[]) => key is T): T {
  let key: unknown;
  try {
    if (!/^[A-Za-z0-9_-]{1,2000}$/.test(cursor)) throw new Error('shape');
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor is not one this server gave out; pass next_cursor exactly as returned', 'bad_cursor');
  }
  if (!Array.isArray(key) || !valid(key)) throw invalid('cursor is not one this server gave out; pass next_cursor exactly as returned', 'bad_cursor');
  return key;
}

/** The cursor of a page that showed nothing yet: the next call starts from the beginning. */
export const START_CURSOR = encodeCursor([]);
