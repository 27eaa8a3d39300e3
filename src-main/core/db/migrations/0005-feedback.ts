import type { Migration } from '../migrate.js';

/** Feedback consent per plate, error reports (one per error_id), task feedback, product feedback. */
export const migration0005: Migration = {
  version: 5,
  name: '0005-feedback',
  up(db) {
    db.exec(`
      -- No row means both flags off and never revoked.
      CREATE TABLE feedback_consent (
        plate TEXT PRIMARY KEY REFERENCES agents(plate),
        bugs INTEGER NOT NULL DEFAULT 0 CHECK (bugs IN (0, 1)),
        product INTEGER NOT NULL DEFAULT 0 CHECK (product IN (0, 1)),
        revoked INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
        granted_at INTEGER,
        updated_at INTEGER NOT NULL
      ) STRICT;

      -- report_error: the trace is built by the server from the evidence row, never sent by the agent.
      CREATE TABLE error_reports (
        id TEXT PRIMARY KEY,
        error_id TEXT NOT NULL UNIQUE REFERENCES evidence(error_id),
        plate TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        room_id TEXT,
        task_id TEXT,
        tool TEXT,
        code TEXT NOT NULL,
        classification TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        impact TEXT,
        note TEXT,
        trace TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX error_reports_by_owner ON error_reports(owner_id, created_at);
      CREATE INDEX error_reports_by_room ON error_reports(room_id, created_at);
      CREATE INDEX error_reports_by_fingerprint ON error_reports(fingerprint);

      -- submit_task_feedback: one row per (plate, task, status step); kind 'contract_mismatch' is the legacy report.
      CREATE TABLE task_feedback (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL,
        task_id TEXT,
        plate TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        step_key TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('task', 'contract_mismatch')),
        outcome TEXT NOT NULL CHECK (outcome IN ('clean', 'issue')),
        task_status TEXT,
        error_id TEXT,
        evidence TEXT,
        issue TEXT,
        recommended_fix TEXT,
        severity TEXT CHECK (severity IS NULL OR severity IN ('blocker', 'degraded', 'minor')),
        origin TEXT CHECK (origin IS NULL OR origin IN ('agent_noticed', 'human_struggle')),
        fingerprint TEXT,
        recurrence INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        UNIQUE (plate, step_key)
      ) STRICT;
      CREATE INDEX task_feedback_by_room ON task_feedback(room_id, created_at);
      CREATE INDEX task_feedback_by_fingerprint ON task_feedback(fingerprint);

      CREATE TABLE product_feedback (
        id TEXT PRIMARY KEY,
        room_id TEXT NOT NULL,
        plate TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        answers TEXT NOT NULL,
        no_notes INTEGER NOT NULL CHECK (no_notes IN (0, 1)),
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX product_feedback_by_room ON product_feedback(room_id, created_at);
    `);
  },
};
