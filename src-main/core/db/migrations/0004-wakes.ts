import type { Migration } from '../migrate.js';

/**
 * Wakes that run: what a run left behind (exit code, output tails, the no-tool-call flag),
 * the runners owners configure per agent and host, and the human-set room context
 * (focus and decisions) that get_room_context serves.
 */
export const migration0004: Migration = {
  version: 4,
  name: '0004-wakes',
  up(db) {
    db.exec(`
      ALTER TABLE wakes ADD COLUMN target TEXT;
      ALTER TABLE wakes ADD COLUMN context_version INTEGER;
      ALTER TABLE wakes ADD COLUMN deadline_at INTEGER;
      ALTER TABLE wakes ADD COLUMN exit_code INTEGER;
      ALTER TABLE wakes ADD COLUMN stdout_tail TEXT;
      ALTER TABLE wakes ADD COLUMN stderr_tail TEXT;
      ALTER TABLE wakes ADD COLUMN tool_calls INTEGER;
      ALTER TABLE wakes ADD COLUMN flagged_no_tool_call INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wakes ADD COLUMN run_credential_id TEXT;
      CREATE INDEX wakes_by_queue ON wakes(plate, room_id, status, seq);
      CREATE INDEX wakes_by_room ON wakes(room_id, seq);
      CREATE INDEX wakes_running_key ON wakes(status, instance_id, room_id, host);

      -- A command the server spawns to wake an agent on a host; one per (agent, host).
      CREATE TABLE runners (
        plate TEXT NOT NULL REFERENCES agents(plate),
        host TEXT NOT NULL CHECK (host IN ('claude-code', 'codex', 'gemini', 'cursor')),
        preset TEXT,
        command TEXT NOT NULL,
        args TEXT NOT NULL DEFAULT '[]',
        cwd TEXT,
        timeout_ms INTEGER NOT NULL,
        env TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (plate, host)
      ) STRICT;

      CREATE TABLE room_focus (
        room_id TEXT PRIMARY KEY REFERENCES rooms(id),
        focus TEXT NOT NULL,
        set_by TEXT NOT NULL REFERENCES owners(id),
        updated_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE room_decisions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        text TEXT NOT NULL,
        created_by TEXT NOT NULL REFERENCES owners(id),
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX room_decisions_by_room ON room_decisions(room_id, seq);
    `);
  },
};
