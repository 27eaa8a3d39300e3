import { WAKE_ACTIONS, type WakeAction } from '../../../shared/api-types.js';
import type { Db } from '../db/open.js';
import { humanRole, type RoomRole } from '../rooms/store.js';
import { getAgentByPlate } from '../agents/store.js';
import { wakeRetried, type WakeStatus } from './store.js';
import { actsOf, no, yes, type Acts, type ActTable, type Permission } from '../util/acts.js';

/**
 * What a human may do with a wake (docs/wakes.md "Acting on a wake"): release or drop a held
 * one, stop a running one, retry a failed one. The wake routes ask `wakePermission` before they
 * act, and the /v1 wake records list `wakeActions` as `allowed_actions`, so the two agree.
 */

export { WAKE_ACTIONS, type WakeAction };

/** The human asking, as the wake's room and agent see it. */
export interface WakeStanding {
  ownerId: string;
  role: RoomRole | undefined;
  /** The owner of the wake's agent. */
  agentOwner: string | undefined;
}

export interface WakeFacts {
  status: WakeStatus;
  /** A failed wake already has its retry. */
  retried: boolean;
}

export type { Permission };

/** Every act on a wake: the agent's owner, or an admin of the wake's room. */
export function wakePermission(who: WakeStanding): Permission {
  if (who.agentOwner !== undefined && who.agentOwner === who.ownerId) return yes;
  if (who.role === 'admin') return yes;
  return no('agent_owner_or_admin_only', 'Only the agent’s owner or a room admin may act on its wakes.');
}

/**
 * The act table of a wake: `applies` is the status half (the routes' conditional updates check
 * the same), `may` the one permission every act shares.
 */
const may = (_w: WakeFacts, who: WakeStanding) => wakePermission(who);
const WAKE_TABLE: ActTable<WakeAction, WakeFacts, WakeStanding> = {
  release: { applies: (w) => w.status === 'held', may },
  drop: { applies: (w) => w.status === 'held', may },
  retry: { applies: (w) => w.status === 'failed' && !w.retried, may },
  stop: { applies: (w) => w.status === 'running', may },
};

/** Which acts the wake's state allows now. */
export function wakeApplies(action: WakeAction, w: WakeFacts): boolean {
  return WAKE_TABLE[action].applies?.(w) ?? true;
}

export type WakeActions = Acts<WakeAction>;

export function wakeActions(w: WakeFacts, who: WakeStanding): WakeActions {
  return actsOf(WAKE_ACTIONS, WAKE_TABLE, w, who);
}

export function wakeStanding(db: Db, w: { plate: string; room_id: string }, ownerId: string): WakeStanding {
  return { ownerId, role: humanRole(db, w.room_id, ownerId), agentOwner: getAgentByPlate(db, w.plate)?.owner_id };
}

/**
 * /v1 wake records with what the owner calling may do with each (docs/wakes.md). Roles and
 * agent owners are read once per room and plate.
 */
export function withWakeActions<T extends { plate: string; room: string; wake_id: string; status: WakeStatus }>(db: Db, ownerId: string, wakes: T[]): Array<T & WakeActions> {
  const roles = new Map<string, RoomRole | undefined>();
  const owners = new Map<string, string | undefined>();
  return wakes.map((w) => {
    if (!roles.has(w.room)) roles.set(w.room, humanRole(db, w.room, ownerId));
    if (!owners.has(w.plate)) owners.set(w.plate, getAgentByPlate(db, w.plate)?.owner_id);
    const facts = { status: w.status, retried: w.status === 'failed' && wakeRetried(db, w.plate, w.wake_id) };
    return { ...w, ...wakeActions(facts, { ownerId, role: roles.get(w.room), agentOwner: owners.get(w.plate) }) };
  });
}
