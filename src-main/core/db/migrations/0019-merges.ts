import type { Migration } from '../migrate.js';

/**
 * Humans review the work (docs/review.md): a task records the merge of its branch into its base
 * (the commit, when, and by which owner), so the board and the task page can say it landed; a
 * follow-up task names the done task whose review asked for changes (it works on the same branch
 * and worktree); reviews are kept with their verdict, line comments and the message they posted;
 * the paths a task's branch changes are kept as last computed, so open tasks changing the same
 * file can say so.
 */
export const migration0019: Migration = {
  version: 19,
  name: '0019-merges',
  up(db) {
    db.exec(`
      ALTER TABLE tasks ADD COLUMN merged_commit TEXT;
      ALTER TABLE tasks ADD COLUMN merged_at INTEGER;
      ALTER TABLE tasks ADD COLUMN merged_by TEXT;
      ALTER TABLE tasks ADD COLUMN follow_up_of TEXT REFERENCES tasks(id);
      -- The paths its branch changes (JSON, bounded), as last computed: overlaps between open tasks.
      ALTER TABLE tasks ADD COLUMN changed_paths TEXT;
      CREATE TABLE task_reviews (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL REFERENCES tasks(id),
        room_id TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('comment', 'request_changes', 'approve')),
        body TEXT,
        comments TEXT NOT NULL,
        message_id TEXT,
        follow_up_task_id TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX task_reviews_by_task ON task_reviews(task_id, created_at);
    `);
  },
};
