import { useEffect, useMemo } from 'react';
import { useMembers, useRooms } from '../stores/rooms';
import type { Instance } from '../types';
import type { Presence as WorkPresence } from '../../../shared/api-types.js';
import { href } from '../router';
import { PRESENCE_WORDS, presenceOf } from './presenceRules';

export { presenceOf, type Presence } from './presenceRules';

/** The presence dot and its words; `presence` is the server's (it knows whether a mention can wake an agent with no session). */
export function PresenceBadge({ instances, presence }: { instances: Instance[]; presence?: WorkPresence }) {
  const p = presenceOf(instances, Date.now(), presence);
  const { label, title } = PRESENCE_WORDS[p];
  return (
    <span className={`badge presence ${p}`} title={title} data-presence={p}>
      <span className="dot" aria-hidden="true" /> {label}
      {instances.length > 0 ? ` ×${instances.length}` : ''}
    </span>
  );
}

/**
 * What the agent is doing, from the server's `presence` (docs/wakes.md "Liveness"): shown for
 * `working` and `stalled` only (idle and offline are what PresenceBadge already says). A stalled
 * agent links to Needs you, where its run can be stopped or requeued.
 */
export function ActivityBadge({ presence }: { presence?: WorkPresence }) {
  if (presence === 'working') {
    return (
      <span className="badge activity working" data-activity="working" title="A wake running, or a tool call in the last minute">
        working
      </span>
    );
  }
  if (presence === 'stalled') {
    return (
      <a className="badge activity stalled" data-activity="stalled" href={href('needs-you')} title="A wake running with no tool call for over 5 minutes: stop or requeue it in Needs you">
        stalled: stop or requeue
      </a>
    );
  }
  return null;
}

/**
 * Every connected instance the signed-in owner can see, by plate: instances are listed per
 * room (members), so this reads the members of each of the owner's rooms.
 */
export function useInstancesByPlate(): Map<string, Instance[]> {
  const rooms = useRooms((s) => s.rooms);
  const members = useMembers((s) => s.rooms);
  useEffect(() => {
    for (const r of rooms) if (!useMembers.getState().rooms[r.room_id]) void useMembers.getState().load(r.room_id);
  }, [rooms]);
  return useMemo(() => {
    const m = new Map<string, Map<string, Instance>>();
    for (const l of Object.values(members)) for (const i of l.data?.instances ?? []) (m.get(i.plate) ?? m.set(i.plate, new Map()).get(i.plate)!).set(i.instance_id, i);
    return new Map([...m].map(([k, v]) => [k, [...v.values()]]));
  }, [members]);
}
