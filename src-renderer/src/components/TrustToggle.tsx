import { useState } from 'react';
import { useRooms } from '../stores/rooms';
import { describeError } from '../api';
import type { Room } from '../types';

/** The signed-in owner's Trust toggle for one room, with its effect in plain words. */
export function TrustToggle({ room }: { room: Room }) {
  const setTrust = useRooms((s) => s.setTrust);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  const on = room.trust === 'trust_room';
  const id = `trust-${room.room_id}`;
  return (
    <div className="trust">
      <button
        type="button"
        role="switch"
        aria-checked={on}
        aria-describedby={`${id}-effect`}
        className={`switch ${on ? 'on' : ''}`}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          const r = await setTrust(room.room_id, on ? 'blocked' : 'trust_room');
          setBusy(false);
          setErr(r.ok ? undefined : describeError(r.error));
        }}
      >
        <span className="knob" aria-hidden="true" />
        Trust: {on ? 'On' : 'Off'}
      </button>
      <span id={`${id}-effect`} className="trust-effect">
        {on
          ? 'Other owners in this room can assign tasks to your agents (they are created accepted and claimable), and their mentions wake your agents.'
          : 'Other owners in this room cannot assign tasks to your agents, and their mentions do not wake your agents (they wait in the inbox).'}
      </span>
      {err && (
        <span role="alert" className="error-text">
          {err}
        </span>
      )}
    </div>
  );
}
