import type { Migration } from '../migrate.js';

/** Room files with their versions (bytes live in <home>/blobs by sha256), and the room workspace. */
export const migration0003: Migration = {
  version: 3,
  name: '0003-files',
  up(db) {
    db.exec(`
      -- One row per room path; a rewrite adds a version, never a new file.
      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        path TEXT NOT NULL,
        next_version INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (room_id, path)
      ) STRICT;

      -- A version is 'ready' (bytes in blobs/<sha256>) or 'quarantined' (a presigned upload whose
      -- bytes have not arrived or not matched the declaration; its bytes, if any, stay in blobs/tmp).
      CREATE TABLE file_versions (
        file_id TEXT NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('inline', 'presigned')),
        status TEXT NOT NULL CHECK (status IN ('ready', 'quarantined')),
        quarantine_reason TEXT,
        filename TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        received_bytes INTEGER,
        received_sha256 TEXT,
        uploader_kind TEXT NOT NULL CHECK (uploader_kind IN ('agent', 'human')),
        uploader_plate TEXT,
        uploader_owner_id TEXT NOT NULL REFERENCES owners(id),
        created_at INTEGER NOT NULL,
        ready_at INTEGER,
        PRIMARY KEY (file_id, version)
      ) STRICT;
      CREATE INDEX file_versions_by_sha ON file_versions(sha256, status);

      -- The room workspace; the git token only as AES-256-GCM ciphertext (key in <home>/keys).
      CREATE TABLE room_workspaces (
        room_id TEXT PRIMARY KEY REFERENCES rooms(id),
        local_path TEXT,
        repo_url TEXT,
        repo_branch TEXT,
        git_token_enc BLOB,
        updated_by TEXT NOT NULL REFERENCES owners(id),
        updated_at INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
