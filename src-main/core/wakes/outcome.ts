import type { Core } from '../core.js';
import { getAgentByPlate } from '../agents/store.js';
import { getOwner, mayRunCommands } from '../owners/store.js';
import { trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';
import type { MentionWake, MentionWakeCode } from '../../../shared/api-types.js';
import { channelSessionOf } from './channel.js';
import { firstRunner, hasRunner } from './runners.js';
import { getWake, listWakes, PULL_REASON, type WakeRow } from './store.js';

/**
 * What became of one mention target (docs/wakes.md "What a mention says"): the wake's status,
 * or `inbox` when nothing can wake the agent now, with a reason a person can act on.
 */
/** What became of one mentioned agent: the UI's own type (shared/api-types.ts), not a second copy. */
export type { MentionWake };

const NO_TARGET = 'no runner and no live channel session: the mention waits in the inbox until the agent checks it (agent-rooms connect HOST --agent NAME configures a runner)';

/**
 * Why the mention queued no wake at all (the checks of mayWake): a code the window can key on
 * (`reason_code`) and the words for the message's author. Trust off names its owner and both
 * directions: neither that owner's agents nor anyone else of hers can be woken by another owner
 * here, humans included (docs/security.md "Trust").
 */
function whyNoWake(core: Core, roomId: string, plate: string, actorOwnerId: string): { code: MentionWakeCode; reason: string } {
  const a = getAgentByPlate(core.db, plate);
  if (!a || a.revoked_at !== null) return { code: 'revoked', reason: 'the agent is revoked: the mention stays in its inbox' };
  if (!hasScope(a.scopes, 'INVOKE')) return { code: 'no_invoke', reason: 'the agent does not hold INVOKE: the mention waits in its inbox, it is not woken' };
  if (a.owner_id !== actorOwnerId && trustMode(core.db, roomId, a.owner_id) !== 'trust_room') {
    const owner = getOwner(core.db, a.owner_id)?.name ?? "the agent's owner";
    return {
      code: 'trust_off',
      reason: `${owner} has not turned Trust on in this room, so mentions by other owners and by their agents do not wake ${owner}'s agents here (${owner} can turn it on in the room's header)`,
    };
  }
  return { code: 'already_woken', reason: 'this message already woke the agent' };
}

/**
 * Nothing can take a wake of this agent now: no live channel session and no runner. A mention
 * then queues its wake parked for pull (store.ts `WakeInput.pull`), which is what the
 * dispatcher's next pass would do (dispatcher.ts `dispatch`), in the message's own transaction.
 */
export function nothingCanTake(core: Core, plate: string): boolean {
  return !channelSessionOf(core, plate) && !hasRunner(core.db, plate);
}

function wakeById(core: Core, id: string | undefined): WakeRow | undefined {
  return id === undefined ? undefined : getWake(core.db, id);
}

/** A wake a message has just queued, as its transaction wrote it (`pull`: parked, nothing can take it). */
export interface QueuedWake {
  id: string;
  pull: boolean;
}

/**
 * One entry per agent mention target of a message (the sender itself excluded). `queued`, when
 * the caller has just written the message, names the wake it queued per mentioned agent (an
 * agent with no entry there is looked up by message): a lookup by id, where a search by message
 * reads every wake of the room (docs/performance.md, "Per-call work"). A wake parked for pull in
 * this very transaction needs no lookup at all: nothing could take it, so it waits in the inbox.
 */
export function mentionWakes(
  core: Core,
  m: { message_id: string; room: string; mentions: ReadonlyArray<{ kind: string; plate?: string; handle: string }> },
  sender: { plate?: string; ownerId: string },
  queued?: ReadonlyMap<string, QueuedWake | undefined>,
): MentionWake[] {
  const out: MentionWake[] = [];
  for (const t of m.mentions) {
    if (t.kind !== 'agent' || !t.plate || t.plate === sender.plate) continue;
    const target = { plate: t.plate, handle: t.handle };
    const fresh = queued?.get(t.plate);
    if (fresh?.pull) {
      out.push({ ...target, wake_id: fresh.id, status: 'inbox', target: 'pull', reason: NO_TARGET });
      continue;
    }
    const w =
      queued?.has(t.plate) === true
        ? wakeById(core, fresh?.id)
        : listWakes(core.db, { roomId: m.room, plate: t.plate, messageId: m.message_id, limit: 1 })[0];
    out.push(mentionWakeOf(core, m.room, target, sender.ownerId, w));
  }
  return out;
}

/**
 * What became of one mentioned agent, from its wake for the message (undefined: none was
 * queued): the wake's status, or `inbox` with the reason when nothing can take it now. Also what
 * the window reads under each message (messages/deliveries.ts).
 */
export function mentionWakeOf(core: Core, roomId: string, t: { plate: string; handle: string }, actorOwnerId: string, w: WakeRow | undefined): MentionWake {
  if (!w) {
    const why = whyNoWake(core, roomId, t.plate, actorOwnerId);
    return { ...t, wake_id: null, status: 'inbox', target: 'pull', reason: why.reason, reason_code: why.code };
  }
  if (w.status !== 'queued') return { ...t, wake_id: w.id, status: w.status, target: w.target, reason: w.reason };
  // Queued: where it is going, as the dispatcher will choose.
  const a = getAgentByPlate(core.db, t.plate);
  const runner = firstRunner(core.db, t.plate);
  if (w.target === 'channel' || channelSessionOf(core, t.plate)) return { ...t, wake_id: w.id, status: 'queued', target: 'channel', reason: w.reason };
  if (runner && a && mayRunCommands(core.db, a.owner_id)) return { ...t, wake_id: w.id, status: 'queued', target: 'runner', reason: w.reason };
  if (runner) {
    return { ...t, wake_id: w.id, status: 'inbox', target: 'pull', reason: "the agent's owner may not run commands on this machine (the primary owner allows it on the People page): the mention waits in the inbox" };
  }
  return { ...t, wake_id: w.id, status: 'inbox', target: 'pull', reason: w.target === 'pull' && w.reason && w.reason !== PULL_REASON ? w.reason : NO_TARGET };
}
