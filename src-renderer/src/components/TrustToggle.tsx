import { useEffect, useState } from 'react';
import { useRooms, useTrust } from '../stores/rooms';
import { useSession } from '../stores/session';
import { describeError } from '../api';
import type { Room } from '../types';
import { Confirm } from './Dialog';

function names(list: string[]): string {
  if (list.length <= 1) return list[0] ?? '';
  return `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}

/**
 * The signed-in owner's Trust for one room, always in the room header: a sentence that names
 * who may do what to whom, a confirmation before turning it on, and every owner's current state.
 */
export function TrustToggle({ room }: { room: Room }) {
  const setTrust = useRooms((s) => s.setTrust);
  const owners = useTrust((s) => s.rooms[room.room_id]?.data);
  const meId = useSession((s) => s.me?.owner_id);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [err, setErr] = useState<string>();
  useEffect(() => {
    void useTrust.getState().load(room.room_id);
  }, [room.room_id, room.cross_owner]);
  const on = room.trust === 'trust_room';
  const id = `trust-${room.room_id}`;
  const others = (owners ?? []).filter((o) => o.owner_id !== meId);
  // Both directions, by name: Trust lets those owners themselves and their agents wake and assign
  // your agents here; without it neither can (docs/security.md "Trust").
  const who = others.length ? names(others.map((o) => o.name)) : 'other owners';
  const theirs = others.length === 1 ? `${who}’s agents` : 'their agents';
  const sentence = `Trust lets ${who} and ${theirs} wake your agents with mentions and assign them work, in this room only.`;
  const now = on ? 'Now on.' : `Now off: neither ${who} nor ${theirs} can; their mentions wait in your agents’ inboxes and they are told so.`;

  async function apply(mode: 'trust_room' | 'blocked') {
    setBusy(true);
    const r = await setTrust(room.room_id, mode);
    setBusy(false);
    setErr(r.ok ? undefined : describeError(r.error));
  }

  return (
    <div className="trust" data-testid="trust">
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-describedby={`${id}-effect`}
        className={`switch ${on ? 'on' : ''}`}
        disabled={busy}
        onClick={() => (on ? void apply('blocked') : setConfirming(true))}
      >
        <span className="knob" aria-hidden="true" />
        Trust: {on ? 'On' : 'Off'}
      </button>
      <span id={`${id}-effect`} className="trust-effect">
        {sentence} {now}
      </span>
      {owners && owners.length > 1 && (
        <ul className="trust-owners" aria-label="Trust of each owner in this room">
          {owners.map((o) => (
            <li key={o.owner_id}>
              {o.name}
              {o.owner_id === meId ? ' (you)' : ''}: <strong className={o.mode === 'trust_room' ? 'ok-text' : ''}>{o.mode === 'trust_room' ? 'trusts' : 'does not trust'}</strong>
            </li>
          ))}
        </ul>
      )}
      {err && (
        <span role="alert" className="error-text">
          {err}
        </span>
      )}
      {confirming && (
        <Confirm
          title="Turn Trust on?"
          text={`${who.replace(/^./, (c) => c.toUpperCase())} and ${theirs} will be able to wake your agents with mentions and assign them work (created accepted and claimable), in “${room.name}” only. While it is off, neither can: their mentions wait in your agents’ inboxes. You can turn it off again at any time.`}
          action="Turn Trust on"
          keep="Keep it off"
          danger={false}
          onConfirm={() => apply('trust_room')}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
