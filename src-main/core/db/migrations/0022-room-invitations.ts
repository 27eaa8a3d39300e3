import type { Migration } from '../migrate.js';

/**
 * Invitations (docs/needs-you.md "Invitations", docs/security.md): a human another owner adds to
 * a room is `invited`, not `joined`, until they accept. An invited human can open the room by
 * its id (to decide), but the room is not in their room list, search, usage or Needs you, and
 * mentions of them there are not recorded for Needs you. Every row so far is `joined`.
 * `invited_by` names who added them.
 *
 * Accepting is the Accept button (POST /v1/rooms/:id/invitation/accept) or the invitee's own
 * act in the room: posting there, adding one of their agents, or setting their Trust there; the
 * triggers below make each of those acts an acceptance in the act's own transaction, whatever
 * path wrote it. However it is accepted, the room's recent mentions of the invitee (its latest
 * 500 messages) join their Needs you, by one more trigger, in the same transaction.
 *
 * `human_mentions_ai` (migration 0021) is redefined to record only mentions of joined members.
 */
export const migration0022: Migration = {
  version: 22,
  name: '0022-room-invitations',
  up(db) {
    db.exec(`
      ALTER TABLE room_humans ADD COLUMN state TEXT NOT NULL DEFAULT 'joined' CHECK (state IN ('invited', 'joined'));
      ALTER TABLE room_humans ADD COLUMN invited_by TEXT REFERENCES owners(id);
      CREATE INDEX room_humans_by_owner ON room_humans(owner_id, state, room_id);

      DROP TRIGGER human_mentions_ai;
      CREATE TRIGGER human_mentions_ai AFTER INSERT ON messages WHEN instr(new.mentions, '"human"') > 0 BEGIN
        INSERT OR IGNORE INTO human_mentions (msg_rowid, owner_id, room_id, created_at)
          SELECT new.rowid, j.value ->> 'owner_id', new.room_id, new.created_at FROM json_each(new.mentions) j
           WHERE j.value ->> 'kind' = 'human' AND j.value ->> 'owner_id' IS NOT NULL
             AND NOT (new.sender_kind = 'human' AND new.sender_owner_id = j.value ->> 'owner_id')
             AND EXISTS (SELECT 1 FROM room_humans h WHERE h.room_id = new.room_id AND h.owner_id = j.value ->> 'owner_id' AND h.state = 'joined');
      END;

      CREATE TRIGGER room_invite_accept_post AFTER INSERT ON messages WHEN new.sender_kind = 'human' BEGIN
        UPDATE room_humans SET state = 'joined' WHERE room_id = new.room_id AND owner_id = new.sender_owner_id AND state = 'invited';
      END;
      CREATE TRIGGER room_invite_accept_agent AFTER INSERT ON room_agents BEGIN
        UPDATE room_humans SET state = 'joined'
         WHERE room_id = new.room_id AND owner_id = (SELECT owner_id FROM agents WHERE plate = new.plate) AND state = 'invited';
      END;
      CREATE TRIGGER room_invite_accept_trust AFTER INSERT ON room_trust BEGIN
        UPDATE room_humans SET state = 'joined' WHERE room_id = new.room_id AND owner_id = new.owner_id AND state = 'invited';
      END;
      CREATE TRIGGER room_invite_accept_trust_u AFTER UPDATE OF mode ON room_trust BEGIN
        UPDATE room_humans SET state = 'joined' WHERE room_id = new.room_id AND owner_id = new.owner_id AND state = 'invited';
      END;

      -- However it is accepted, the room's recent mentions of the invitee (its latest 500 messages)
      -- join their Needs you, in the acceptance's own transaction.
      CREATE TRIGGER room_invite_accepted_mentions AFTER UPDATE OF state ON room_humans
        WHEN old.state = 'invited' AND new.state = 'joined' BEGIN
        INSERT OR IGNORE INTO human_mentions (msg_rowid, owner_id, room_id, created_at)
          SELECT m.rowid, new.owner_id, m.room_id, m.created_at
            FROM (SELECT rowid AS rowid, * FROM messages WHERE room_id = new.room_id ORDER BY seq DESC LIMIT 500) m
           WHERE instr(m.mentions, '"owner_id":"' || new.owner_id || '"') > 0
             AND NOT (m.sender_kind = 'human' AND m.sender_owner_id = new.owner_id)
             AND EXISTS (SELECT 1 FROM json_each(m.mentions) j WHERE j.value ->> 'kind' = 'human' AND j.value ->> 'owner_id' = new.owner_id);
      END;
    `);
  },
};
