import type { Migration } from '../migrate.js';

/** Owners, agents and their credentials, rooms, messages, the inbox, idempotency, evidence, wakes. */
export const migration0001: Migration = {
  version: 1,
  name: '0001-core',
  up(db) {
    db.exec(`
      CREATE TABLE owners (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        slug TEXT NOT NULL UNIQUE,
        plate_prefix TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        is_primary INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE agents (
        id TEXT PRIMARY KEY,
        plate TEXT NOT NULL UNIQUE,
        owner_id TEXT NOT NULL REFERENCES owners(id),
        name TEXT NOT NULL,
        slug TEXT NOT NULL,
        scopes INTEGER NOT NULL,
        revoked_at INTEGER,
        created_at INTEGER NOT NULL,
        UNIQUE (owner_id, slug)
      ) STRICT;

      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id),
        name TEXT NOT NULL,
        revoked_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(id),
        device_id TEXT NOT NULL REFERENCES devices(id),
        secret_hash TEXT NOT NULL UNIQUE,
        purpose TEXT NOT NULL DEFAULT 'user',
        revoked_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_by TEXT NOT NULL REFERENCES owners(id),
        context_version INTEGER NOT NULL DEFAULT 0,
        next_seq INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE room_humans (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        owner_id TEXT NOT NULL REFERENCES owners(id),
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, owner_id)
      ) STRICT;

      CREATE TABLE room_agents (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        plate TEXT NOT NULL REFERENCES agents(plate),
        added_by TEXT NOT NULL REFERENCES owners(id),
        created_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, plate)
      ) STRICT;
      CREATE INDEX room_agents_by_plate ON room_agents(plate);

      -- The per-(room, owner) Trust toggle; no row means Off.
      CREATE TABLE room_trust (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        owner_id TEXT NOT NULL REFERENCES owners(id),
        mode TEXT NOT NULL CHECK (mode IN ('trust_room', 'blocked')),
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, owner_id)
      ) STRICT;

      -- One row per change of a room's durable context; get_room_context reads deltas from it.
      CREATE TABLE room_changes (
        room_id TEXT NOT NULL REFERENCES rooms(id),
        version INTEGER NOT NULL,
        class TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (room_id, version, class)
      ) STRICT;

      CREATE TABLE messages (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        seq INTEGER NOT NULL,
        sender_kind TEXT NOT NULL CHECK (sender_kind IN ('agent', 'human')),
        sender_plate TEXT,
        sender_owner_id TEXT NOT NULL REFERENCES owners(id),
        body TEXT NOT NULL,
        mentions TEXT NOT NULL DEFAULT '[]',
        parent_id TEXT REFERENCES messages(id),
        created_at INTEGER NOT NULL,
        UNIQUE (room_id, seq)
      ) STRICT;

      -- The inbox: one row per (mention, recipient agent).
      CREATE TABLE mentions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        plate TEXT NOT NULL REFERENCES agents(plate),
        room_id TEXT NOT NULL REFERENCES rooms(id),
        message_id TEXT REFERENCES messages(id),
        task_id TEXT,
        kind TEXT NOT NULL DEFAULT 'mention',
        trust_level TEXT NOT NULL,
        acked_at INTEGER,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX mentions_open ON mentions(plate, acked_at, seq);

      CREATE TABLE idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (scope, key)
      ) STRICT;

      CREATE TABLE login_links (
        token_hash TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES owners(id),
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT;

      CREATE TABLE ui_sessions (
        id_hash TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES owners(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;

      -- The evidence store: what a failure was, never what the caller sent.
      CREATE TABLE evidence (
        error_id TEXT PRIMARY KEY,
        surface TEXT NOT NULL,
        tool TEXT,
        code TEXT NOT NULL,
        reason TEXT,
        http_status INTEGER NOT NULL,
        arg_shape TEXT NOT NULL,
        room_id TEXT,
        task_id TEXT,
        plate TEXT,
        owner_id TEXT,
        request_id TEXT,
        surface_version TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX evidence_by_fingerprint ON evidence(fingerprint);

      -- Durable wakes. The dispatcher fills host and instance when it picks a target.
      CREATE TABLE wakes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        plate TEXT NOT NULL REFERENCES agents(plate),
        room_id TEXT NOT NULL REFERENCES rooms(id),
        trigger TEXT NOT NULL CHECK (trigger IN ('mention', 'assignment', 'successor')),
        task_id TEXT,
        message_id TEXT,
        content TEXT NOT NULL,
        event_key TEXT NOT NULL,
        host TEXT,
        instance_id TEXT,
        status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'handled', 'failed')),
        reason TEXT,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        ended_at INTEGER,
        UNIQUE (plate, event_key)
      ) STRICT;
      CREATE INDEX wakes_by_status ON wakes(status, seq);
    `);
  },
};
