import { useEffect, useState } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { useRooms } from '../stores/rooms';
import type { Owner } from '../types';
import { Confirm } from './Dialog';

/**
 * The primary owner's view of the people on this server and who may configure runners
 * (docs/security.md, item 1). A runner runs commands as this machine's user, so turning the
 * right on asks first and says what it means; taking it back needs no confirmation. The owner
 * allowed sees her own page change at once (an owners.changed event reaches her window).
 */
export function OwnerRights() {
  const owners = useRooms((s) => s.owners);
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [asking, setAsking] = useState<Owner | null>(null);
  useEffect(() => {
    void useRooms.getState().loadOwners();
  }, []);
  const others = owners.filter((o) => !o.is_primary);

  async function toggle(o: Owner, allow: boolean) {
    setBusy(o.owner_id);
    const r = await client.owners.update({ params: { ownerId: o.owner_id }, body: { allow_runners: allow } });
    setBusy(undefined);
    setErr(r.ok ? undefined : describeError(r.error));
    if (r.ok) await useRooms.getState().loadOwners();
  }

  return (
    <section aria-labelledby="people-h" className="stack">
      <h2 id="people-h">People on this server</h2>
      <p className="note" id="runner-right-warning">
        Allowing runners lets that person run any command on this machine as your user account: their runners can read your files, keys and tokens. Allow it
        only for someone you would hand your computer to.
      </p>
      {others.length === 0 ? (
        <p className="muted">No other owners yet.</p>
      ) : (
        <ul className="list">
          {others.map((o) => (
            <li key={o.owner_id} data-owner={o.owner_id}>
              <strong>{o.name}</strong> <span className="muted">{o.handle}</span>{' '}
              <label className="check">
                <input
                  type="checkbox"
                  checked={!!o.allow_runners}
                  disabled={busy === o.owner_id}
                  aria-describedby="runner-right-warning"
                  onChange={(e) => (e.target.checked ? setAsking(o) : void toggle(o, false))}
                />{' '}
                May configure runners (runs commands as this machine’s user)
              </label>
            </li>
          ))}
        </ul>
      )}
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {asking && (
        <Confirm
          title={`Let ${asking.name} run commands on this machine?`}
          text={`${asking.name}’s runners will run commands on this computer as your user account: whatever ${asking.name}’s agents are asked to do, they can read and change your files, keys and tokens. ${asking.name} can then set up runners for those agents, and mentions wake them here. You can take the right back at any time; running runs stop at once.`}
          action={`Allow ${asking.name}’s runners`}
          keep="Keep them off"
          onConfirm={() => toggle(asking, true)}
          onClose={() => setAsking(null)}
        />
      )}
    </section>
  );
}
