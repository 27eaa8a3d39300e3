import type { Migration } from '../migrate.js';

/**
 * Agents do the work (docs/worktrees.md): a task records its worktree (folder, branch, base
 * branch and base commit, as JSON) or why it has none, and when the worktree was removed; a
 * runner says what its runs may do (`work`: room, edit, full; NULL is the default); a runner
 * wake keeps a bounded transcript of what its host printed (docs/wakes.md "Live runs"), how many
 * of its oldest events were dropped for the bounds, and when the run last printed anything.
 */
export const migration0018: Migration = {
  version: 18,
  name: '0018-worktrees',
  up(db) {
    db.exec(`
      ALTER TABLE tasks ADD COLUMN worktree TEXT;
      ALTER TABLE tasks ADD COLUMN worktree_reason TEXT;
      ALTER TABLE tasks ADD COLUMN worktree_removed_at INTEGER;
      ALTER TABLE runners ADD COLUMN work TEXT CHECK (work IS NULL OR work IN ('room', 'edit', 'full'));
      ALTER TABLE wakes ADD COLUMN transcript_dropped INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE wakes ADD COLUMN last_output_at INTEGER;
      CREATE TABLE wake_transcripts (
        wake_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('text', 'tool_call', 'tool_result', 'error', 'result')),
        tool TEXT,
        summary TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        PRIMARY KEY (wake_id, seq)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
