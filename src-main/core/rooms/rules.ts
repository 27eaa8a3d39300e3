import { AGENT_MEMBER_ACTIONS, HUMAN_MEMBER_ACTIONS, ROOM_ACTIONS, type AgentMemberAction, type HumanMemberAction, type RoomAction } from '../../../shared/api-types.js';
import type { RoomRole } from './store.js';
import { actsOf, no, yes, type Acts, type ActTable, type Permission } from '../util/acts.js';

/**
 * What the owner calling may do with a room's member (docs/rooms.md "Members"): remove an agent
 * (its owner or a room admin), leave (the caller's own human record). The rooms service asks
 * these functions before it acts; GET /v1/rooms/:id/members carries their answers as
 * `allowed_actions` and `denied_actions`, so the window asks instead of copying the rule.
 */

export { AGENT_MEMBER_ACTIONS, HUMAN_MEMBER_ACTIONS, ROOM_ACTIONS, type AgentMemberAction, type HumanMemberAction, type RoomAction };

export type { Permission };

export interface MemberStanding {
  ownerId: string;
  role: RoomRole;
}

/** Removing an agent from the room: the agent's owner, or a room admin. */
export function removeAgentPermission(who: MemberStanding, agentOwnerId: string): Permission {
  if (agentOwnerId === who.ownerId || who.role === 'admin') return yes;
  return no('agent_owner_or_admin_only', 'Only the agent’s owner or a room admin may remove it.');
}

/** Adding a human to the room: a room admin (any member adds its own agents). */
export function addHumanPermission(role: RoomRole | undefined): Permission {
  return role === 'admin' ? yes : no('admin_only', 'Only a room admin may add humans to this room.');
}

/** Changing the room's workspace (its routes declare `room: 'admin'`, which the router checks). */
export function editWorkspacePermission(role: RoomRole | undefined): Permission {
  return role === 'admin' ? yes : no('admin_only', 'Only room admins can change the workspace; agents of admins can read it with read_workspace.');
}

/** The acts on a room itself, by the caller's role in it. */
const ROOM_TABLE: ActTable<RoomAction, RoomRole | undefined, undefined> = {
  add_human: { may: (role) => addHumanPermission(role) },
  edit_workspace: { may: (role) => editWorkspacePermission(role) },
};

/** A room record with what its human caller may do in it now (GET /v1/rooms, GET /v1/rooms/:id). */
export function withRoomActions<R extends { role?: RoomRole | undefined }>(room: R): R & Acts<RoomAction> {
  return { ...room, ...actsOf(ROOM_ACTIONS, ROOM_TABLE, room.role, undefined) };
}

const AGENT_MEMBER_TABLE: ActTable<AgentMemberAction, { owner: { owner_id: string } }, MemberStanding> = {
  remove: { may: (a, who) => removeAgentPermission(who, a.owner.owner_id) },
};

/** What leaving reads: the caller's role, how many other admins and humans the room has, and whom it could name. */
export interface LeaveFacts {
  role: RoomRole | undefined;
  otherAdmins: number;
  otherHumans: number;
  /** Whom a leaving admin may name as the next admin: every other human of the room. */
  nextAdmins: string[];
}

/** The facts of leaving, from the room's humans: the members record and the leave itself read them the same way. */
export function leaveFacts(humans: ReadonlyArray<{ owner_id: string; role: RoomRole }>, who: MemberStanding): LeaveFacts {
  const others = humans.filter((h) => h.owner_id !== who.ownerId);
  return { role: who.role, otherAdmins: others.filter((h) => h.role === 'admin').length, otherHumans: others.length, nextAdmins: others.map((h) => h.owner_id) };
}

/**
 * Leaving the room: anyone, except the last admin, who names another member as admin first
 * (`last_admin`: leave with `new_admin`, one of `nextAdmins`), and cannot leave while no other
 * human is there (`only_human`). The leave use case (store.ts leaveRoom) asks the same inside its
 * transaction.
 */
export function leavePermission(f: LeaveFacts): Permission {
  if (f.role !== 'admin' || f.otherAdmins > 0) return yes;
  if (f.otherHumans === 0) return no('only_human', 'You are the only human here: add someone as admin before you leave.');
  return no('last_admin', 'You are the last admin: name the new admin to leave.');
}

/**
 * Whether the human leaving may name `newAdmin` as the next admin: an admin naming one of its
 * `nextAdmins` (the window's choices are that list). Not an act of a record: the leave's body
 * names it, and its refusals are the leave's errors (store.ts leaveRoom).
 */
export function newAdminRefusal(f: LeaveFacts, self: string, newAdmin: string): 'not_room_admin' | 'self' | 'not_a_member' | undefined {
  if (f.role !== 'admin') return 'not_room_admin';
  if (newAdmin === self) return 'self';
  return f.nextAdmins.includes(newAdmin) ? undefined : 'not_a_member';
}

/** A human's record as its caller sees it: `next_admins` names whom a last admin may name on leaving. */
export type HumanWithActions<H> = H & Acts<HumanMemberAction> & { next_admins?: string[] };

/** The members of a room, each with what the caller may do with it now. */
export function withMemberActions<
  H extends { owner_id: string; role: RoomRole },
  G extends { owner: { owner_id: string } },
>(members: { humans: H[]; agents: G[] }, who: MemberStanding): { humans: Array<HumanWithActions<H>>; agents: Array<G & Acts<AgentMemberAction>> } {
  const facts = leaveFacts(members.humans, who);
  const leave = leavePermission(facts);
  return {
    humans: members.humans.map((h) => {
      // Leaving is one's own act; nobody removes another human.
      if (h.owner_id !== who.ownerId) return { ...h, allowed_actions: [], denied_actions: {} };
      if (leave.ok) return { ...h, allowed_actions: ['leave'], denied_actions: {} };
      const refused = { ...h, allowed_actions: [], denied_actions: { leave: { code: leave.code, message: leave.message } } };
      return leave.code === 'last_admin' ? { ...refused, next_admins: facts.nextAdmins } : refused;
    }),
    agents: members.agents.map((a) => ({ ...a, ...actsOf(AGENT_MEMBER_ACTIONS, AGENT_MEMBER_TABLE, a, who) })),
  };
}
