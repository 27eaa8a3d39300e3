import type { Migration } from '../migrate.js';

/**
 * Task history, recorded rather than inferred (docs/tasks.md "History"): one row per change to a
 * task, written in the same transaction as the change, with who acted. `seq` orders them (and
 * pages them); a lease's renewals are one row per claim, its count and last time updated in place,
 * so a long run's heartbeats do not grow the table. Wakes of a task are recorded by triggers on
 * `wakes` (queued when it names the task, handled or failed when it ends), so every path that
 * queues or ends a wake writes its event in its own transaction without knowing tasks.
 *
 * Existing tasks get what is known of their past: created (by whom, at created_at), their wakes,
 * reviews, completion, merge and archiving, in time order.
 */
export const migration0020: Migration = {
  version: 20,
  name: '0020-task-events',
  up(db) {
    db.exec(`
      CREATE TABLE task_events (
        seq INTEGER PRIMARY KEY,
        task_id TEXT NOT NULL,
        room_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        actor_kind TEXT NOT NULL CHECK (actor_kind IN ('human', 'agent', 'server')),
        actor_id TEXT NOT NULL,
        from_value TEXT,
        to_value TEXT,
        reason TEXT,
        wake_id TEXT,
        -- JSON object (bounded by its writers), or NULL.
        detail TEXT
      ) STRICT;
      CREATE INDEX task_events_by_task ON task_events(task_id, seq);

      CREATE TRIGGER task_events_wake_queued AFTER INSERT ON wakes WHEN NEW.task_id IS NOT NULL
      BEGIN
        INSERT INTO task_events (task_id, room_id, at, kind, actor_kind, actor_id, to_value, reason, wake_id, detail)
        VALUES (NEW.task_id, NEW.room_id, NEW.created_at,
                CASE NEW.status WHEN 'held' THEN 'wake_held' ELSE 'wake_queued' END,
                'server', 'server', NEW.plate, NEW.reason, NEW.id, json_object('trigger', NEW.trigger));
      END;
      CREATE TRIGGER task_events_wake_attached AFTER UPDATE OF task_id ON wakes
        WHEN OLD.task_id IS NULL AND NEW.task_id IS NOT NULL AND NEW.status = 'queued'
      BEGIN
        INSERT INTO task_events (task_id, room_id, at, kind, actor_kind, actor_id, to_value, wake_id, detail)
        VALUES (NEW.task_id, NEW.room_id, CAST(unixepoch('subsec') * 1000 AS INTEGER), 'wake_queued', 'server', 'server', NEW.plate, NEW.id,
                json_object('trigger', NEW.trigger));
      END;
      CREATE TRIGGER task_events_wake_ended AFTER UPDATE OF status ON wakes
        WHEN NEW.task_id IS NOT NULL AND OLD.status IS NOT NEW.status AND NEW.status IN ('handled', 'failed', 'held')
      BEGIN
        INSERT INTO task_events (task_id, room_id, at, kind, actor_kind, actor_id, to_value, reason, wake_id, detail)
        VALUES (NEW.task_id, NEW.room_id, coalesce(NEW.ended_at, CAST(unixepoch('subsec') * 1000 AS INTEGER)),
                'wake_' || NEW.status, 'server', 'server', NEW.plate, substr(NEW.reason, 1, 500), NEW.id,
                json_object('trigger', NEW.trigger, 'exit_code', NEW.exit_code));
      END;

      INSERT INTO task_events (task_id, room_id, at, kind, actor_kind, actor_id, from_value, to_value, reason, wake_id, detail)
      SELECT task_id, room_id, at, kind, actor_kind, actor_id, from_value, to_value, reason, wake_id, detail FROM (
        SELECT id AS task_id, room_id, created_at AS at, 'created' AS kind, created_by_kind AS actor_kind,
               coalesce(CASE created_by_kind WHEN 'agent' THEN created_by_plate END, created_by_owner) AS actor_id,
               NULL AS from_value, assignee AS to_value, NULL AS reason, NULL AS wake_id,
               CASE WHEN retry_of IS NOT NULL THEN json_object('retry_of', retry_of)
                    WHEN follow_up_of IS NOT NULL THEN json_object('follow_up_of', follow_up_of) END AS detail, 0 AS o
          FROM tasks
        UNION ALL
        SELECT w.task_id, w.room_id, w.created_at, 'wake_queued', 'server', 'server', NULL, w.plate, NULL, w.id, json_object('trigger', w.trigger), 1
          FROM wakes w JOIN tasks t ON t.id = w.task_id
        UNION ALL
        SELECT w.task_id, w.room_id, w.ended_at, 'wake_' || w.status, 'server', 'server', NULL, w.plate, substr(w.reason, 1, 500), w.id,
               json_object('trigger', w.trigger, 'exit_code', w.exit_code), 2
          FROM wakes w JOIN tasks t ON t.id = w.task_id WHERE w.status IN ('handled', 'failed') AND w.ended_at IS NOT NULL
        UNION ALL
        SELECT r.task_id, r.room_id, r.created_at, 'reviewed', 'human', r.owner_id, NULL, NULL, NULL, NULL,
               json_object('verdict', r.verdict, 'review_id', r.id, 'follow_up', r.follow_up_task_id), 3
          FROM task_reviews r JOIN tasks t ON t.id = r.task_id
        UNION ALL
        SELECT id, room_id, completed_at, 'completed', 'agent', assignee, 'doing', 'done', NULL, NULL,
               json_object('summary', substr(summary, 1, 500)), 4
          FROM tasks WHERE status = 'done' AND completed_at IS NOT NULL
        UNION ALL
        SELECT id, room_id, merged_at, 'merged', CASE WHEN merged_by IS NULL THEN 'server' ELSE 'human' END, coalesce(merged_by, 'server'),
               NULL, NULL, NULL, NULL, json_object('commit', merged_commit), 5
          FROM tasks WHERE merged_at IS NOT NULL
        UNION ALL
        SELECT id, room_id, archived_at, 'archived', 'server', 'server', NULL, NULL, NULL, NULL, NULL, 6
          FROM tasks WHERE archived_at IS NOT NULL
      ) ORDER BY at, o;
    `);
  },
};
