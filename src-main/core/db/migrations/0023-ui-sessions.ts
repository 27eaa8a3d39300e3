import type { Migration } from '../migrate.js';

/**
 * The window's sessions outlive the browser (kept in localStorage, 30 days sliding) and are
 * listed and revoked in Settings (docs/security.md, item 5). A session needs, beside its hashed
 * token:
 * - `public_id`: how Settings names it (`uis_` + the first 16 hex digits of the token's hash).
 *   The page derives the same from its own token, so it knows which one is "this browser"; the
 *   id cannot be turned back into the token.
 * - `last_used_at`: when it last made a request (written at most once a minute).
 * - `client`: a short label of the browser that signed in ("Chrome on Linux"), no more of its
 *   User-Agent than that.
 * Sessions made before this were last renewed about 8 hours (the old idle period) before their
 * idle deadline: that is their last use; they keep their deadline and slide from their next use.
 */
export const migration0023: Migration = {
  version: 23,
  name: '0023-ui-sessions',
  up(db) {
    db.exec(`
      ALTER TABLE ui_sessions ADD COLUMN public_id TEXT NOT NULL DEFAULT '';
      ALTER TABLE ui_sessions ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE ui_sessions ADD COLUMN client TEXT NOT NULL DEFAULT '';
      UPDATE ui_sessions SET public_id = 'uis_' || substr(id_hash, 1, 16), last_used_at = max(created_at, expires_at - 28800000);
      CREATE UNIQUE INDEX ui_sessions_public ON ui_sessions(public_id);
      CREATE INDEX ui_sessions_by_owner ON ui_sessions(owner_id, last_used_at);
    `);
  },
};
