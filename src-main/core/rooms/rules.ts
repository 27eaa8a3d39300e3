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

/** The members of a room, each with what the caller may do with it now. */
export function withMemberActions<
  H extends { owner_id: string },
  G extends { owner: { owner_id: string } },
>(members: { humans: H[]; agents: G[] }, who: MemberStanding): { humans: Array<H & Acts<HumanMemberAction>>; agents: Array<G & Acts<AgentMemberAction>> } {
  return {
    humans: members.humans.map((h) => ({
      ...h,
      // Leaving is one's own act; nobody removes another human (a human leaves, naming the next admin if it is the last).
      allowed_actions: h.owner_id === who.ownerId ? (['leave'] as HumanMemberAction[]) : [],
      denied_actions: {},
    })),
    agents: members.agents.map((a) => ({ ...a, ...actsOf(AGENT_MEMBER_ACTIONS, AGENT_MEMBER_TABLE, a, who) })),
  };
}
