import type { Migration } from '../migrate.js';

/** Tasks on the board, their dependencies, and the handoff notes delivered to successors. */
export const migration0002: Migration = {
  version: 2,
  name: '0002-tasks',
  up(db) {
    db.exec(`
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        title TEXT NOT NULL,
        detail TEXT,
        definition_of_done TEXT NOT NULL,
        assignee TEXT NOT NULL REFERENCES agents(plate),
        sort_order INTEGER,
        status TEXT NOT NULL DEFAULT 'todo'
          CHECK (status IN ('todo', 'doing', 'blocked', 'done', 'failed', 'cancelled')),
        consent_state TEXT NOT NULL CHECK (consent_state IN ('auto', 'accepted')),
        lease_instance_id TEXT,
        lease_renewed_at INTEGER,
        result_ref TEXT,
        reason TEXT,
        summary TEXT,
        artifacts TEXT NOT NULL DEFAULT '[]',
        next TEXT,
        handoff_notes TEXT,
        created_by_kind TEXT NOT NULL CHECK (created_by_kind IN ('agent', 'human')),
        created_by_plate TEXT,
        created_by_owner TEXT NOT NULL REFERENCES owners(id),
        -- Bumped on every (re)assignment; part of the assignment wake's event key.
        assign_count INTEGER NOT NULL DEFAULT 0,
        completed_at INTEGER,
        archived_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        -- A lease exists exactly while the task is doing, and a done task always carries its handoff.
        CHECK ((status = 'doing') = (lease_instance_id IS NOT NULL)),
        CHECK ((lease_instance_id IS NULL) = (lease_renewed_at IS NULL)),
        CHECK (status <> 'done' OR (handoff_notes IS NOT NULL AND completed_at IS NOT NULL))
      ) STRICT;
      CREATE INDEX tasks_by_room ON tasks(room_id, archived_at, assignee);
      CREATE INDEX tasks_by_lease ON tasks(lease_instance_id) WHERE lease_instance_id IS NOT NULL;

      -- task_id may be claimed only once every depends_on task is done.
      CREATE TABLE task_deps (
        task_id TEXT NOT NULL REFERENCES tasks(id),
        depends_on TEXT NOT NULL REFERENCES tasks(id),
        PRIMARY KEY (task_id, depends_on),
        CHECK (task_id <> depends_on)
      ) STRICT;
      CREATE INDEX task_deps_by_prerequisite ON task_deps(depends_on);

      -- One row per (completed task, direct successor): the handoff notes addressed to its assignee.
      CREATE TABLE task_handoffs (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL REFERENCES rooms(id),
        from_task_id TEXT NOT NULL REFERENCES tasks(id),
        to_task_id TEXT NOT NULL REFERENCES tasks(id),
        from_plate TEXT NOT NULL,
        to_plate TEXT NOT NULL,
        notes TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (from_task_id, to_task_id)
      ) STRICT;
      CREATE INDEX task_handoffs_to ON task_handoffs(to_plate, room_id, created_at);
    `);
  },
};
