import type { Core } from '../core.js';
import { getAgentByPlate, type AgentRow } from '../agents/store.js';
import { isAgentMember, trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';
import { startedSince, type HoldReason, type MergeRefusal, type WakeRow } from './store.js';
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

/**
 * A queued mention about to join a coalesced run (docs/wakes.md "Coalescing"): it must pass every
 * check its own start would, at the moment the run starts, or it is failed or held on its own
 * (docs/security.md, third round: only the lead used to be checked, so a mention queued under
 * Trust reached the model after Trust was turned off, and merged wakes skipped the loop guard and
 * the budget). Called inside the lead's start transaction, after the lead is marked running, so
 * the budget counts the lead's start: a mention is held when the lead took the last start.
 */
export function mergeRefusal(core: Core, w: WakeRow): MergeRefusal | undefined {
  const fail = recheckReason(core, w, getAgentByPlate(core.db, w.plate)) ?? (w.task_id ? taskStaleReason(core, w.task_id, w.plate) : undefined);
  if (fail) return { fail };
  const hold = holdReasonOf(core, w);
  return hold ? { hold } : undefined;
}
