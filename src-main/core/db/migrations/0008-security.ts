import type { Migration } from '../migrate.js';

/**
 * docs/security.md: the rights the server now checks and the state it needs for them.
 * - owners.allow_runners: a secondary owner may configure runners (commands run as this
 *   machine's user) only when the primary owner allowed it; the primary owner always may.
 * - wakes.actor_owner_id: whose action queued the wake, so Trust is checked again when it
 *   starts. Mention wakes written before this learn it from their message; other old wakes
 *   keep NULL (no actor known: the start-time recheck covers revocation, membership, INVOKE).
 * - room_workspaces.local_path_by: who set the local path (not whoever touched another field
 *   last); a runner works there only when that is its agent's own owner.
 * - deleted_files: soft-deleted files, restorable until purge_at; their blobs stay referenced.
 */
export const migration0008: Migration = {
  version: 8,
  name: '0008-security',
  up(db) {
    db.exec(`
      ALTER TABLE owners ADD COLUMN allow_runners INTEGER NOT NULL DEFAULT 0 CHECK (allow_runners IN (0, 1));

      ALTER TABLE wakes ADD COLUMN actor_owner_id TEXT;
      UPDATE wakes SET actor_owner_id = (SELECT m.sender_owner_id FROM messages m WHERE m.id = wakes.message_id)
        WHERE message_id IS NOT NULL;

      ALTER TABLE room_workspaces ADD COLUMN local_path_by TEXT;
      UPDATE room_workspaces SET local_path_by = updated_by WHERE local_path IS NOT NULL;

      CREATE TABLE deleted_files (
        file_id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        path TEXT NOT NULL,
        file_row TEXT NOT NULL,
        versions TEXT NOT NULL,
        deleted_by_kind TEXT NOT NULL CHECK (deleted_by_kind IN ('agent', 'human')),
        deleted_by_plate TEXT,
        deleted_by_owner_id TEXT NOT NULL,
        deleted_at INTEGER NOT NULL,
        purge_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX deleted_files_by_room ON deleted_files(room_id, deleted_at);
      CREATE INDEX deleted_files_by_purge ON deleted_files(purge_at);
      -- The bytes a deleted file keeps alive until it is purged.
      CREATE TABLE deleted_file_blobs (
        file_id TEXT NOT NULL REFERENCES deleted_files(file_id) ON DELETE CASCADE,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (file_id, sha256)
      ) STRICT;
      CREATE INDEX deleted_file_blobs_by_sha ON deleted_file_blobs(sha256);
    `);
  },
};
