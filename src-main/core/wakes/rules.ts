import { WAKE_ACTIONS, type WakeAction } from '../../../shared/api-types.js';
import type { Db } from '../db/open.js';
import { humanRole, type RoomRole } from '../rooms/store.js';
import { getAgentByPlate } from '../agents/store.js';
import { wakeRetried, type WakeStatus } from './store.js';

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

export type Permission = { ok: true } | { ok: false; reason: string };

/** Every act on a wake: the agent's owner, or an admin of the wake's room. */
export function wakePermission(who: WakeStanding): Permission {
  if (who.agentOwner !== undefined && who.agentOwner === who.ownerId) return { ok: true };
  if (who.role === 'admin') return { ok: true };
  return { ok: false, reason: 'Only the agent’s owner or a room admin may act on its wakes.' };
}

/** The status half: which acts the wake's state allows now (the routes' conditional updates check the same). */
export function wakeApplies(action: WakeAction, w: WakeFacts): boolean {
  switch (action) {
    case 'release':
    case 'drop':
      return w.status === 'held';
    case 'stop':
      return w.status === 'running';
    case 'retry':
      return w.status === 'failed' && !w.retried;
  }
}

export interface WakeActions {
  allowed_actions: WakeAction[];
  denied_actions: Partial<Record<WakeAction, string>>;
}

export function wakeActions(w: WakeFacts, who: WakeStanding): WakeActions {
  const p = wakePermission(who);
  const allowed: WakeAction[] = [];
  const denied: Partial<Record<WakeAction, string>> = {};
  for (const a of WAKE_ACTIONS) {
    if (!wakeApplies(a, w)) continue;
    if (p.ok) allowed.push(a);
    else denied[a] = p.reason;
  }
  return { allowed_actions: allowed, denied_actions: denied };
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
