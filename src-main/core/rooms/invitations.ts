import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { AppError } from '../errors/app-error.js';
import { ownerHandle } from '../owners/store.js';
import { getRoom, roomDto, touchRoom, trustMode, type RoomRole } from './store.js';
import type { z } from 'zod';
import type { invitationRecord } from '../../../shared/schemas/rooms.js';

/**
 * Invitations (docs/needs-you.md "Invitations", docs/security.md): a human that another owner
 * adds to a room is `invited` until they accept (migration 0022). Until then the room is not in
 * their search, usage or Needs you (the room list marks it `invited`; the window shows it under
 * Invitations, not among their rooms), and mentions of them there are not recorded for Needs
 * you; they may open it by its id to decide. Accept joins; Decline takes the row away (the
 * inviter may invite again). An owner adding themselves, or their own agents, needs no invitation.
 */

/** Whether this human is in the room only as an invitee. */
export function isInvited(db: Db, roomId: string, ownerId: string): boolean {
  return stmt(db, "SELECT 1 FROM room_humans WHERE room_id = ? AND owner_id = ? AND state = 'invited'").get(roomId, ownerId) !== undefined;
}

/** Marks a human just added by someone else as invited (called in the adding transaction). */
export function markInvited(db: Db, roomId: string, ownerId: string, by: string): void {
  stmt(db, "UPDATE room_humans SET state = 'invited', invited_by = ? WHERE room_id = ? AND owner_id = ?").run(by, roomId, ownerId);
}

/** The invitees among a room's humans: the member list marks them. */
export function invitedOf(db: Db, roomId: string): Set<string> {
  return new Set((stmt(db, "SELECT owner_id FROM room_humans WHERE room_id = ? AND state = 'invited'").all(roomId) as Array<{ owner_id: string }>).map((r) => r.owner_id));
}

/** The rooms this human is only invited to, newest first (the room list marks them). */
export function invitedRoomsOf(db: Db, ownerId: string): string[] {
  return (stmt(db, "SELECT room_id FROM room_humans WHERE owner_id = ? AND state = 'invited' ORDER BY created_at DESC, room_id").all(ownerId) as Array<{ room_id: string }>).map(
    (r) => r.room_id,
  );
}

/** At most this many invitations are listed (newest first): another owner's 2,000 rooms are one bounded page. */
export const INVITATIONS_PAGE = 100;

/** A room another owner added the caller to, waiting for Accept or Decline (shared/schemas/rooms.ts `invitationRecord`). */
export type InvitationRecord = z.output<typeof invitationRecord>;

/** The caller's open invitations, newest first, with how many there are in all. */
export function invitationsOf(db: Db, ownerId: string, limit = INVITATIONS_PAGE): { invitations: InvitationRecord[]; total: number } {
  const rows = stmt(
    db,
    `SELECT h.room_id, r.name, h.role, h.invited_by, h.created_at FROM room_humans h JOIN rooms r ON r.id = h.room_id
      WHERE h.owner_id = ? AND h.state = 'invited' ORDER BY h.created_at DESC, h.room_id LIMIT ?`,
  ).all(ownerId, limit) as Array<{ room_id: string; name: string; role: RoomRole; invited_by: string | null; created_at: number }>;
  const total = (stmt(db, "SELECT COUNT(*) AS n FROM room_humans WHERE owner_id = ? AND state = 'invited'").get(ownerId) as { n: number }).n;
  return {
    total,
    invitations: rows.map((r) => {
      const by = r.invited_by ? ownerHandle(db, r.invited_by) : undefined;
      return {
        room: { room_id: r.room_id, name: r.name },
        role: r.role,
        invited_by: by && r.invited_by ? { owner_id: r.invited_by, name: by.name, handle: `@${by.slug}` } : null,
        invited_at: new Date(r.created_at).toISOString(),
      };
    }),
  };
}

function noInvitation(roomId: string): AppError {
  return new AppError('NOT_FOUND', 'no invitation to this room is waiting for you', { roomId, reason: 'no_invitation' });
}

/**
 * The invitee accepts: they join the room as invited (their role), and the room's recent
 * mentions of them (its latest 500 messages) join their Needs you.
 */
export function acceptInvitation(core: Core, { room, ownerId }: { room: string; ownerId: string }) {
  const { db } = core;
  immediate(db, () => {
    if (stmt(db, "UPDATE room_humans SET state = 'joined' WHERE room_id = ? AND owner_id = ? AND state = 'invited'").run(room, ownerId).changes !== 1) {
      throw noInvitation(room);
    }
    // Its recent mentions of the invitee join their Needs you by the acceptance's trigger (migration 0022).
    touchRoom(db, room, ['roster']);
  });
  core.bus.emit({ type: 'members.changed', room });
  core.bus.emit({ type: 'rooms.changed', owners: [ownerId] });
  const r = getRoom(db, room)!;
  const role = (stmt(db, 'SELECT role FROM room_humans WHERE room_id = ? AND owner_id = ?').get(room, ownerId) as { role: RoomRole }).role;
  return { ...roomDto(db, r), role, trust: trustMode(db, room, ownerId) };
}

/** The invitee declines: the row goes; nothing of theirs was ever in the room. */
export function declineInvitation(core: Core, { room, ownerId }: { room: string; ownerId: string }) {
  const { db } = core;
  immediate(db, () => {
    if (stmt(db, "DELETE FROM room_humans WHERE room_id = ? AND owner_id = ? AND state = 'invited'").run(room, ownerId).changes !== 1) throw noInvitation(room);
    touchRoom(db, room, ['roster']);
  });
  core.bus.emit({ type: 'members.changed', room });
  core.bus.emit({ type: 'rooms.changed', owners: [ownerId] });
  return { declined: true as const, room };
}
