import type { Migration } from '../migrate.js';

/**
 * Needs you holds only what still waits, in bounded work whatever the number of rooms
 * (docs/needs-you.md):
 *
 * - `needs_dismissals`: an item an owner dismissed, by kind and the id of what it points at
 *   (a wake, a task, a message), until the owner restores it. Per owner: one owner's dismissal
 *   hides nothing from another.
 * - `human_mentions`: one row per (message, mentioned human), written by a trigger on `messages`
 *   in the message's own transaction, so the mentions of a human are one indexed read instead
 *   of a scan of every room's latest messages (2,000 rooms took 3.7 s). `answered_at` is set by
 *   a second trigger when that human posts later in the same room: an answered mention no longer
 *   waits. Existing messages are indexed here; a message's deletion drops its rows.
 * - `wakes_needs`: failed and held wakes by room, newest first, so the wakes that may need a
 *   human are found per room without reading the room's whole wake log.
 */
export const migration0021: Migration = {
  version: 21,
  name: '0021-needs-dismissals',
  up(db) {
    db.exec(`
      CREATE TABLE needs_dismissals (
        owner_id TEXT NOT NULL REFERENCES owners(id),
        kind TEXT NOT NULL CHECK (kind IN ('agent_stalled', 'wake_failed', 'wake_held', 'task_failed', 'task_blocked', 'lease_stale', 'blocked_by_failed', 'mention')),
        ref TEXT NOT NULL,
        room_id TEXT NOT NULL,
        dismissed_at INTEGER NOT NULL,
        PRIMARY KEY (owner_id, kind, ref)
      ) STRICT;
      CREATE INDEX needs_dismissals_recent ON needs_dismissals(owner_id, dismissed_at);

      CREATE TABLE human_mentions (
        msg_rowid INTEGER NOT NULL,
        owner_id TEXT NOT NULL,
        room_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        answered_at INTEGER,
        PRIMARY KEY (msg_rowid, owner_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX human_mentions_open ON human_mentions(owner_id, room_id, answered_at, created_at);

      CREATE INDEX wakes_needs ON wakes(room_id, seq) WHERE status IN ('failed', 'held');

      CREATE TRIGGER human_mentions_ai AFTER INSERT ON messages WHEN instr(new.mentions, '"human"') > 0 BEGIN
        INSERT OR IGNORE INTO human_mentions (msg_rowid, owner_id, room_id, created_at)
          SELECT new.rowid, j.value ->> 'owner_id', new.room_id, new.created_at FROM json_each(new.mentions) j
           WHERE j.value ->> 'kind' = 'human' AND j.value ->> 'owner_id' IS NOT NULL
             AND NOT (new.sender_kind = 'human' AND new.sender_owner_id = j.value ->> 'owner_id');
      END;
      CREATE TRIGGER human_mentions_answered AFTER INSERT ON messages WHEN new.sender_kind = 'human' BEGIN
        UPDATE human_mentions SET answered_at = new.created_at
         WHERE owner_id = new.sender_owner_id AND room_id = new.room_id AND answered_at IS NULL AND msg_rowid < new.rowid;
      END;
      CREATE TRIGGER human_mentions_ad AFTER DELETE ON messages BEGIN
        DELETE FROM human_mentions WHERE msg_rowid = old.rowid;
      END;

      INSERT OR IGNORE INTO human_mentions (msg_rowid, owner_id, room_id, created_at)
        SELECT m.rowid, j.value ->> 'owner_id', m.room_id, m.created_at FROM messages m, json_each(m.mentions) j
         WHERE instr(m.mentions, '"human"') > 0 AND j.value ->> 'kind' = 'human' AND j.value ->> 'owner_id' IS NOT NULL
           AND NOT (m.sender_kind = 'human' AND m.sender_owner_id = j.value ->> 'owner_id');
      -- A mention its human has posted after (in the same room) was answered: one pass over the
      -- messages for every human's last post per room, not a lookup per mention.
      CREATE TEMP TABLE last_human_post (room_id TEXT, owner_id TEXT, last_rowid INTEGER, at INTEGER, PRIMARY KEY (room_id, owner_id)) WITHOUT ROWID;
      INSERT INTO last_human_post
        SELECT room_id, sender_owner_id AS owner_id, MAX(rowid) AS last_rowid, MAX(created_at) AS at
          FROM messages WHERE sender_kind = 'human' GROUP BY room_id, sender_owner_id;
      UPDATE human_mentions SET answered_at = (SELECT p.at FROM last_human_post p WHERE p.room_id = human_mentions.room_id AND p.owner_id = human_mentions.owner_id)
       WHERE msg_rowid < (SELECT p.last_rowid FROM last_human_post p WHERE p.room_id = human_mentions.room_id AND p.owner_id = human_mentions.owner_id);
      DROP TABLE last_human_post;
    `);
  },
};
