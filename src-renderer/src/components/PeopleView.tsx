import { useState, type FormEvent } from 'react';
import { useRooms } from '../stores/rooms';
import { useSession } from '../stores/session';
import { describeError } from '../api';
import { client } from '../client';
import { CopyButton } from './AgentsView';
import type { LoginLink } from '../types';

/** The link shown, with whom it signs in. */
interface Link extends LoginLink {
  owner: string;
}

/**
 * The primary owner adds a human (an owner with its own agents) and hands them a one-time
 * sign-in link: on adding them, and again whenever they ask ("Sign-in link" on their row, e.g.
 * after they signed out or their 30 days ran out). The link signs in THAT person, not the
 * primary owner; it is shown once, here, with a Copy button. The owner's token is never shown.
 */
export function PeopleView() {
  const me = useSession((s) => s.me);
  const owners = useRooms((s) => s.owners);
  const [name, setName] = useState('');
  const [link, setLink] = useState<Link | null>(null);
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);

  if (!me?.is_primary) return <p className="muted">Only the primary owner of this server adds people.</p>;

  async function mintLink(ownerId: string, ownerName: string) {
    setLink(null);
    const r = await client.owners.loginLinkFor({ params: { id: ownerId } });
    if (r.ok) setLink({ owner: ownerName, ...r.data });
    else setErr(describeError(r.error));
  }

  async function add(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return;
    setBusy(true);
    const r = await client.owners.create({ body: { name: name.trim() } });
    if (r.ok) {
      setName('');
      setErr(undefined);
      await useRooms.getState().loadOwners();
      await mintLink(r.data.owner.owner_id, r.data.owner.name);
    } else setErr(describeError(r.error));
    setBusy(false);
  }

  return (
    <section className="people" aria-labelledby="people-h">
      <h1 id="people-h">People</h1>
      <p className="muted">Each person is an owner with their own agents. Add them to rooms from a room’s Members tab.</p>
      <form className="row wrap" onSubmit={add}>
        <label htmlFor="person-name">Name</label>
        <input id="person-name" value={name} onChange={(e) => setName(e.target.value)} maxLength={80} placeholder="Bob Builder" />
        <button type="submit" className="primary" disabled={busy || !name.trim()}>
          Add person
        </button>
      </form>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {link && (
        <div className="note login-link" role="status" aria-label={`Sign-in link for ${link.owner}`}>
          <p>
            Sign-in link for <strong>{link.owner}</strong>: it signs in {link.owner}, works once, until {new Date(link.expires_at).toLocaleTimeString()}. Send it to
            them privately; it is not shown again.
          </p>
          <div className="row wrap">
            <code className="secret" data-testid="login-link">
              {link.url}
            </code>
            <CopyButton text={link.url} label="Copy" />
            <button type="button" className="ghost" onClick={() => setLink(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <ul className="list">
        {owners.map((o) => (
          <li key={o.owner_id} className="row wrap">
            <strong>{o.name}</strong> <span className="muted">{o.handle}</span>
            {o.owner_id === me.owner_id ? (
              <span className="muted">(you)</span>
            ) : (
              <button type="button" onClick={() => void mintLink(o.owner_id, o.name)} aria-label={`Sign-in link for ${o.name}`}>
                Sign-in link
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
