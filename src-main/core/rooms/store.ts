import { immediate, type Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { defineMemo } from '../db/watch.js';
import { newId } from '../util/ids.js';
import { AppError, invalid } from '../errors/app-error.js';
import { getAgentByPlate, agentHandle, platesOfOwner } from '../agents/store.js';
import { ownerHandle } from '../owners/store.js';
import { leaveFacts, leavePermission, newAdminRefusal } from './rules.js';
import type { z } from 'zod';
import type { roomRecord } from '../../../shared/schemas/rooms.js';

export type RoomRole = 'admin' | 'member';

interface RoomRow {
  id: string;
  name: string;
  created_by: string;
  context_version: number;
  next_seq: number;
  /** The context_version of the room's newest message (0: none yet). */
  messages_version: number;
  created_at: number;
  /** `test`: its owner's private "Test wakes" room (migration 0024); `room`: every other room. */
  kind: RoomKind;
}

/** An ordinary room, or an owner's one private room of test wakes (docs/wakes.md "Test wakes"). */
export type RoomKind = 'room' | 'test';
/** The name the test room is created with; it is found by its owner and kind, never by this name. */
export const TEST_ROOM_NAME = 'Test wakes';

/** A room as tools show it (shared/schemas/rooms.ts `roomRecord`). */
export type RoomDto = z.output<typeof roomRecord>;

export function roomDto(db: Db, r: RoomRow): RoomDto {
  return {
    room_id: r.id,
    name: r.name,
    created_by: r.created_by,
    cross_owner: isCrossOwner(db, r.id),
    last_seq: r.next_seq - 1,
    context_version: r.context_version,
    created_at: new Date(r.created_at).toISOString(),
  };
}

export function getRoom(db: Db, roomId: string): RoomRow | undefined {
  return stmt(db, 'SELECT * FROM rooms WHERE id = ?').get(roomId) as RoomRow | undefined;
}

/** The room a caller was already checked against (a route's `room:`, a tool's `room: 'member'`). */
export function roomById(db: Db, roomId: string): RoomRow {
  const room = getRoom(db, roomId);
  if (!room) throw new AppError('NOT_FOUND', 'room not found');
  return room;
}

export function createRoom(db: Db, ownerId: string, name: string): RoomRow {
  const n = name.trim();
  if (!n || n.length > 100) throw invalid('room name must be 1 to 100 characters');
  const id = newId('room');
  const now = Date.now();
  immediate(db, () => {
    stmt(db, 'INSERT INTO rooms (id, name, created_by, created_at) VALUES (?, ?, ?, ?)').run(id, n, ownerId, now);
    stmt(db, 'INSERT INTO room_humans (room_id, owner_id, role, created_at) VALUES (?, ?, ?, ?)').run(id, ownerId, 'admin', now);
  });
  return getRoom(db, id)!;
}

/** The working rooms a human is in: the room list. The owner's test room is not one (it is shown under Settings). */
export function roomsOfOwner(db: Db, ownerId: string): RoomRow[] {
  return stmt(
    db,
    "SELECT r.* FROM rooms r JOIN room_humans h ON h.room_id = r.id WHERE h.owner_id = ? AND r.kind = 'room' ORDER BY r.created_at",
  ).all(ownerId) as RoomRow[];
}

/**
 * SQL: the room `roomIdSql` is a working room, not an owner's Test wakes room (for a query of another
 * capability over rooms, e.g. Needs you: test wakes are shown under Settings, not where work waits).
 */
export const workingRoomSql = (roomIdSql: string) => `NOT EXISTS (SELECT 1 FROM rooms tr WHERE tr.id = ${roomIdSql} AND tr.kind = 'test')`;

/** The owner's test room, found by its owner and kind (one per owner, migration 0024), never by name. */
export function testRoomOf(db: Db, ownerId: string): RoomRow | undefined {
  return stmt(db, "SELECT * FROM rooms WHERE created_by = ? AND kind = 'test'").get(ownerId) as RoomRow | undefined;
}

/**
 * The owner's test room, created on first use with the owner as its only human. A room of that
 * name that someone else made, or that the owner made by hand, is never taken for it.
 */
export function ensureTestRoom(db: Db, ownerId: string): { room: RoomRow; created: boolean } {
  return immediate(db, () => {
    const had = testRoomOf(db, ownerId);
    if (had) {
      // Its owner is always in it: nothing lets the owner leave (the last admin cannot), but a
      // room restored from an older backup may lack the row.
      stmt(db, "INSERT OR IGNORE INTO room_humans (room_id, owner_id, role, created_at) VALUES (?, ?, 'admin', ?)").run(had.id, ownerId, Date.now());
      return { room: had, created: false };
    }
    const id = newId('room');
    const now = Date.now();
    stmt(db, "INSERT INTO rooms (id, name, created_by, created_at, kind) VALUES (?, ?, ?, ?, 'test')").run(id, TEST_ROOM_NAME, ownerId, now);
    stmt(db, 'INSERT INTO room_humans (room_id, owner_id, role, created_at) VALUES (?, ?, ?, ?)').run(id, ownerId, 'admin', now);
    return { room: getRoom(db, id)!, created: true };
  });
}

/** A test room holds its owner and the owner's own agents, nobody else (docs/security.md). */
function refuseOthersInTestRoom(db: Db, roomId: string, ownerId: string): void {
  const r = stmt(db, 'SELECT kind, created_by FROM rooms WHERE id = ?').get(roomId) as { kind: RoomKind; created_by: string } | undefined;
  if (r?.kind === 'test' && r.created_by !== ownerId) {
    throw new AppError('FORBIDDEN', 'this is its owner\'s private Test wakes room: nobody else can be added to it', { roomId, reason: 'test_room' });
  }
}

export function roomsOfAgent(db: Db, plate: string): RoomRow[] {
  return stmt(
    db,
    'SELECT r.* FROM rooms r JOIN room_agents a ON a.room_id = r.id WHERE a.plate = ? ORDER BY r.created_at',
  ).all(plate) as RoomRow[];
}

/** The ids of the rooms a human is in (joined: an invitation is not yet theirs, rooms/invitations.ts). */
export function roomIdsOfOwner(db: Db, ownerId: string): string[] {
  return (stmt(db, "SELECT room_id FROM room_humans WHERE owner_id = ? AND state = 'joined'").all(ownerId) as Array<{ room_id: string }>).map((r) => r.room_id);
}

export function humanRole(db: Db, roomId: string, ownerId: string): RoomRole | undefined {
  const r = stmt(db, 'SELECT role FROM room_humans WHERE room_id = ? AND owner_id = ?').get(roomId, ownerId) as
    | { role: RoomRole }
    | undefined;
  return r?.role;
}

/** Whether the agent is in the room; a yes is remembered until the room or its agents change (db/watch.ts). */
export function isAgentMember(db: Db, roomId: string, plate: string): boolean {
  const known = knownMembers(db);
  const key = memberKey(roomId, plate);
  if (known?.get(key)) return true;
  const member = stmt(db, 'SELECT 1 FROM room_agents WHERE room_id = ? AND plate = ?').get(roomId, plate) !== undefined;
  if (member) known?.set(key, true);
  return member;
}

/** The room, if the agent is a member; NOT_FOUND or NOT_MEMBER otherwise. The tool registry runs it for every `room: 'member'` tool. */
export function requireAgentRoom(db: Db, roomId: string, plate: string): RoomRow {
  // One statement, so a tool call's room check is one read of the store, not two (docs/performance.md).
  const row = stmt(db, 'SELECT r.*, EXISTS (SELECT 1 FROM room_agents WHERE room_id = r.id AND plate = ?) AS is_member FROM rooms r WHERE r.id = ?').get(
    plate,
    roomId,
  ) as (RoomRow & { is_member?: number }) | undefined;
  if (!row) throw new AppError('NOT_FOUND', 'room not found; call list_rooms for the rooms you are in');
  const { is_member: member, ...room } = row;
  if (member !== 1) {
    throw new AppError('NOT_MEMBER', 'you are not a member of this room; ask its owner to add you', { roomId });
  }
  return room;
}

/** Agents known to be in a room, until the room or its agents change (db/watch.ts). */
const knownMembers = defineMemo<true>('membership', [
  { table: 'rooms', on: 'DELETE' },
  { table: 'rooms', on: 'UPDATE OF id' },
  { table: 'room_agents', on: 'INSERT' },
  { table: 'room_agents', on: 'DELETE' },
  { table: 'room_agents', on: 'UPDATE OF room_id, plate' },
]);

/** requireAgentRoom without the row, for the check every room tool call makes first (a pass is remembered, as isAgentMember's). */
export function checkAgentRoom(db: Db, roomId: string, plate: string): void {
  const known = knownMembers(db);
  const key = memberKey(roomId, plate);
  if (known?.get(key)) return;
  requireAgentRoom(db, roomId, plate);
  known?.set(key, true);
}

const memberKey = (roomId: string, plate: string) => `${roomId}\n${plate}`;

/** The room and the human's role in it, if the human is a member (any role, or admin when asked). */
export function requireHumanRoom(db: Db, roomId: string, ownerId: string, needAdmin = false): RoomRow & { role: RoomRole } {
  const room = getRoom(db, roomId);
  const role = room && humanRole(db, roomId, ownerId);
  if (!room || !role) throw new AppError('NOT_FOUND', 'room not found');
  if (needAdmin && role !== 'admin') throw new AppError('FORBIDDEN', 'only a room admin may do this', { roomId });
  return { ...room, role };
}

/** The plates of the room's agents, in the order they joined. */
export function agentPlatesOfRoom(db: Db, roomId: string): string[] {
  return (stmt(db, 'SELECT plate FROM room_agents WHERE room_id = ? ORDER BY created_at, rowid').all(roomId) as Array<{ plate: string }>).map(
    (r) => r.plate,
  );
}

/** Cross-owner: agents of more than one owner are members. */
export function isCrossOwner(db: Db, roomId: string): boolean {
  return agentOwnersOfRoom(db, roomId).length > 1;
}

/** The owners whose agents are in the room. */
export function agentOwnersOfRoom(db: Db, roomId: string): string[] {
  const owners = new Set<string>();
  for (const plate of agentPlatesOfRoom(db, roomId)) {
    const a = getAgentByPlate(db, plate);
    if (a) owners.add(a.owner_id);
  }
  return [...owners];
}

/**
 * An SQL condition for a query of another capability that must stay one query (path
 * reservations live only while their holder is in the room): `plateSql` is an agent of `roomSql`.
 */
export function roomHasAgentSql(roomSql: string, plateSql: string): string {
  return `EXISTS (SELECT 1 FROM room_agents ra WHERE ra.room_id = ${roomSql} AND ra.plate = ${plateSql})`;
}

export function trustMode(db: Db, roomId: string, ownerId: string): 'trust_room' | 'blocked' {
  const r = stmt(db, 'SELECT mode FROM room_trust WHERE room_id = ? AND owner_id = ?').get(roomId, ownerId) as
    | { mode: 'trust_room' | 'blocked' }
    | undefined;
  return r?.mode ?? 'blocked';
}

export function setTrust(db: Db, roomId: string, ownerId: string, mode: 'trust_room' | 'blocked'): void {
  stmt(
    db,
    `INSERT INTO room_trust (room_id, owner_id, mode, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (room_id, owner_id) DO UPDATE SET mode = excluded.mode, updated_at = excluded.updated_at`,
  ).run(roomId, ownerId, mode, Date.now());
}

export function addHuman(db: Db, roomId: string, ownerId: string, role: RoomRole): void {
  refuseOthersInTestRoom(db, roomId, ownerId);
  stmt(
    db,
    `INSERT INTO room_humans (room_id, owner_id, role, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (room_id, owner_id) DO UPDATE SET role = excluded.role`,
  ).run(roomId, ownerId, role, Date.now());
}

export function addAgent(db: Db, roomId: string, plate: string, addedBy: string): void {
  const owner = getAgentByPlate(db, plate)?.owner_id;
  if (owner) refuseOthersInTestRoom(db, roomId, owner);
  stmt(db, 'INSERT OR IGNORE INTO room_agents (room_id, plate, added_by, created_at) VALUES (?, ?, ?, ?)').run(
    roomId,
    plate,
    addedBy,
    Date.now(),
  );
}

/**
 * A human leaves a room (docs/security.md, item 2). The last admin names another member as
 * admin first (`newAdmin`). The owner's agents leave with it, and its Trust for the room is
 * cleared: nothing of that owner stays behind to be woken or assigned.
 */
export function leaveRoom(db: Db, roomId: string, ownerId: string, newAdmin?: string): void {
  immediate(db, () => {
    const role = humanRole(db, roomId, ownerId);
    if (!role) throw new AppError('NOT_FOUND', 'room not found');
    // The rule the members record lists (rules.ts leaveFacts, leavePermission, newAdminRefusal), read from the same rows.
    const facts = leaveFacts(stmt(db, 'SELECT owner_id, role FROM room_humans WHERE room_id = ?').all(roomId) as Array<{ owner_id: string; role: RoomRole }>, { ownerId, role });
    if (newAdmin !== undefined) {
      // Naming an admin is an admin's act; a member leaving must not promote anyone.
      const refused = newAdminRefusal(facts, ownerId, newAdmin);
      if (refused === 'not_room_admin') throw new AppError('FORBIDDEN', 'only a room admin may name a new admin', { roomId, reason: 'not_room_admin' });
      if (refused === 'self') throw invalid('new_admin must be another member of the room', 'bad_new_admin');
      if (refused === 'not_a_member') throw invalid('new_admin must be a human member of the room', 'bad_new_admin');
      stmt(db, "UPDATE room_humans SET role = 'admin' WHERE room_id = ? AND owner_id = ?").run(roomId, newAdmin);
    } else if (!leavePermission(facts).ok) {
      // last_admin or only_human; the error's reason stays last_admin for both.
      throw new AppError('CONFLICT', 'you are the last admin of this room: name another member as admin (new_admin) to leave', {
        reason: 'last_admin',
        roomId,
      });
    }
    stmt(db, 'DELETE FROM room_agents WHERE room_id = ? AND plate IN (SELECT value FROM json_each(?))').run(roomId, JSON.stringify(platesOfOwner(db, ownerId)));
    stmt(db, 'DELETE FROM room_trust WHERE room_id = ? AND owner_id = ?').run(roomId, ownerId);
    stmt(db, 'DELETE FROM room_humans WHERE room_id = ? AND owner_id = ?').run(roomId, ownerId);
    touchRoom(db, roomId, ['roster']);
  });
}

export function removeAgent(db: Db, roomId: string, plate: string): void {
  stmt(db, 'DELETE FROM room_agents WHERE room_id = ? AND plate = ?').run(roomId, plate);
}

export function listMembers(db: Db, roomId: string) {
  const humans = (stmt(db, 'SELECT owner_id, role FROM room_humans WHERE room_id = ? ORDER BY created_at').all(roomId) as Array<{ owner_id: string; role: RoomRole }>).flatMap(
    (h) => {
      const o = ownerHandle(db, h.owner_id);
      return o ? [{ kind: 'human' as const, owner_id: h.owner_id, name: o.name, handle: `@${o.slug}`, role: h.role }] : [];
    },
  );
  const agents = (
    stmt(db, 'SELECT plate FROM room_agents WHERE room_id = ? ORDER BY created_at').all(roomId) as Array<{ plate: string }>
  ).map((r) => {
    const a = getAgentByPlate(db, r.plate)!;
    return {
      kind: 'agent' as const,
      plate: a.plate,
      name: a.name,
      handle: agentHandle(a),
      owner: { owner_id: a.owner_id, name: a.owner_name },
      revoked: a.revoked_at !== null,
    };
  });
  return { humans, agents };
}

/**
 * Takes the room's next message seq and moves its context version, in one update of the room's row
 * inside the sender's transaction; undefined when there is no such room. The row keeps when its
 * messages last changed (`messages_version`, read by changedClassesSince): no change row per message.
 *
 * `also` adds columns to what the update returns: scalar subqueries of the caller's own tables,
 * with their named parameters (`@room` is the room), so that a message learns everything its
 * write needs in one statement (docs/performance.md, "One statement for a message's place").
 */
export function postToRoom<R extends object = object>(
  db: Db,
  roomId: string,
  also?: { columns: string; params?: Record<string, unknown> },
): ({ seq: number } & R) | undefined {
  return stmt(
    db,
    `UPDATE rooms SET next_seq = next_seq + 1, context_version = context_version + 1, messages_version = context_version + 1 WHERE id = @room
      RETURNING next_seq - 1 AS seq${also ? `, ${also.columns}` : ''}`,
  ).get({ ...also?.params, room: roomId }) as ({ seq: number } & R) | undefined;
}

/** The classes of the room's context that changed after `sinceVersion` (as far as history is kept), sorted. */
export function changedClassesSince(db: Db, roomId: string, sinceVersion: number): string[] {
  return (
    stmt(
      db,
      `SELECT class FROM room_changes WHERE room_id = @room AND version > @since
       UNION SELECT 'messages' FROM rooms WHERE id = @room AND messages_version > @since
       ORDER BY class`,
    ).all({ room: roomId, since: sinceVersion }) as Array<{ class: string }>
  ).map((r) => r.class);
}

/** The newest context_version at which this class changed, if history still holds one. */
export function lastChangeOf(db: Db, roomId: string, cls: string): number | null {
  if (cls === 'messages') {
    return (stmt(db, 'SELECT NULLIF(messages_version, 0) AS v FROM rooms WHERE id = ?').get(roomId) as { v: number | null } | undefined)?.v ?? null;
  }
  return (stmt(db, 'SELECT MAX(version) AS v FROM room_changes WHERE room_id = ? AND class = ?').get(roomId, cls) as { v: number | null }).v;
}

/** Drops change records older than the last `keepVersions` versions of each room. */
export function dropOldRoomChanges(db: Db, keepVersions: number): number {
  return stmt(db, `DELETE FROM room_changes WHERE version <= (SELECT context_version FROM rooms WHERE rooms.id = room_changes.room_id) - ?`).run(keepVersions)
    .changes;
}

/**
 * Records a change of the room's durable context and returns the new context_version.
 * Call inside the transaction that makes the change. Classes: messages, board, files,
 * focus, decisions, roster, handoffs, workspace, reservations.
 */
export function touchRoom(db: Db, roomId: string, classes: string[]): number {
  const r = stmt(db, 'UPDATE rooms SET context_version = context_version + 1 WHERE id = ? RETURNING context_version').get(
    roomId,
  ) as { context_version: number } | undefined;
  if (!r) throw new AppError('NOT_FOUND', 'room not found');
  const now = Date.now();
  for (const c of classes) stmt(db, 'INSERT OR IGNORE INTO room_changes (room_id, version, class, created_at) VALUES (?, ?, ?, ?)').run(roomId, r.context_version, c, now);
  return r.context_version;
}
