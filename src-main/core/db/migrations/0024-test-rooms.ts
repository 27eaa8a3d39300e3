import type { Migration } from '../migrate.js';

/**
 * Test wakes stay out of working rooms (docs/wakes.md "Test wakes"): a room has a `kind`, `room`
 * (every room so far) or `test`, an owner's one private "Test wakes" room, which `doctor --wake`
 * and the window's live test of the connect dialog post to. At most one test room per owner
 * (a unique index on its creator), found by its owner, never by its name: a room another owner
 * names "agent-rooms doctor" or "Test wakes" is an ordinary room of theirs.
 *
 * The "agent-rooms doctor" rooms that `doctor --wake` used to create: the oldest one an owner
 * created and is still in, with no other human, becomes the owner's test room (renamed "Test
 * wakes"), so the permanent room with its unread badge leaves the room list. One that another
 * human was added to (by its creator) stays an ordinary room: it may hold talk that is not only
 * test traffic, and hiding it would hide that talk from the others. So does a second one.
 */
export const migration0024: Migration = {
  version: 24,
  name: '0024-test-rooms',
  up(db) {
    db.exec(`
      ALTER TABLE rooms ADD COLUMN kind TEXT NOT NULL DEFAULT 'room' CHECK (kind IN ('room', 'test'));
      CREATE UNIQUE INDEX rooms_one_test_room ON rooms(created_by) WHERE kind = 'test';
      UPDATE rooms SET kind = 'test', name = 'Test wakes'
       WHERE id IN (
         SELECT (SELECT r.id FROM rooms r
                  WHERE r.created_by = o.id AND r.name = 'agent-rooms doctor'
                    AND EXISTS (SELECT 1 FROM room_humans h WHERE h.room_id = r.id AND h.owner_id = o.id)
                    AND NOT EXISTS (SELECT 1 FROM room_humans h WHERE h.room_id = r.id AND h.owner_id <> o.id)
                  ORDER BY r.created_at, r.rowid LIMIT 1)
         FROM owners o
       );
    `);
  },
};
