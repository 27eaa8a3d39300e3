import type { Core } from '../core.js';
import type { AgentRow } from '../agents/store.js';
import { isAgentMember, trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';
import { startedSince, type HoldReason, type WakeRow } from './store.js';
import { wakeLimits } from './limits.js';

/**
 * Admission: what a wake about to start is checked against (docs/wakes.md). Whether it still
 * may run at all (recheckReason, taskStaleReason: it is dropped), and whether it must wait for a
 * human first (holdReasonOf: it is held). The dispatcher asks; the rules live here.
 */

const HOUR_MS = 60 * 60 * 1000;

/**
 * Why a wake about to start is held instead: deeper than the loop guard's limit, or its agent
 * already started its budget of wakes in the last hour. A wake a human released starts past both.
 */
export function holdReasonOf(core: Core, w: WakeRow): HoldReason | undefined {
  if (w.released_at !== null) return undefined;
  const limits = wakeLimits(core);
  if (w.chain_depth > limits.max_chain) return 'loop_guard';
  if (limits.wake_budget > 0 && startedSince(core.db, w.plate, Date.now() - HOUR_MS) >= limits.wake_budget) return 'budget';
  return undefined;
}

/**
 * Everything mayWake checked when the wake was queued, checked again as it starts: the
 * agent (revoked, INVOKE), its membership, and the Trust of its owner towards the actor's.
 */
export function recheckReason(core: Core, w: WakeRow, a: AgentRow | undefined): string | undefined {
  const { db } = core;
  if (!a || a.revoked_at !== null) return 'the agent was revoked';
  if (!isAgentMember(db, w.room_id, w.plate)) return 'the agent is no longer a member of the room';
  if (!hasScope(a.scopes, 'INVOKE')) return 'the agent no longer holds INVOKE';
  if (w.actor_owner_id && w.actor_owner_id !== a.owner_id && trustMode(db, w.room_id, a.owner_id) !== 'trust_room') {
    return "the agent's owner turned Trust off in this room after the wake was queued";
  }
  return undefined;
}

/** Why a task wake has nothing left to do, as the tasks capability says (core.ports.taskWakes: wakes imports no tasks). */
export function taskStaleReason(core: Core, taskId: string, plate: string): string | undefined {
  return core.ports.taskWakes.staleReason(core.db, taskId, plate);
}
