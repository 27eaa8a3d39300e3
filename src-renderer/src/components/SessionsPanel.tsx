import { useCallback, useEffect, useState } from 'react';
import { describeError, sessionPublicId } from '../api';
import { client } from '../client';
import { signOut } from '../session-api';
import { formatTime } from './time';
import type { UiSession } from '../types';

/**
 * Settings: the browsers where this owner is signed in (docs/security.md, item 5). Each stays
 * signed in for 30 days after its last use; any can be signed out from here, and "Sign out
 * everywhere else" ends all but this one. An ended session's next request is refused and its
 * live updates close, so that window shows the sign-in page at once.
 */
export function SessionsPanel() {
  const [sessions, setSessions] = useState<UiSession[] | null>(null);
  const [mine, setMine] = useState<string | null>(null);
  const [err, setErr] = useState<string>();
  const [note, setNote] = useState<string>();
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const [r, id] = await Promise.all([client.owners.sessions(), sessionPublicId()]);
    setMine(id);
    if (r.ok) {
      setSessions(r.data.sessions);
      setErr(undefined);
    } else setErr(describeError(r.error));
  }, []);
  useEffect(() => void load(), [load]);

  async function end(s: UiSession) {
    if (s.session_id === mine) return void signOut().finally(() => window.location.replace('/'));
    setBusy(true);
    const r = await client.owners.endSession({ params: { sessionId: s.session_id } });
    setBusy(false);
    if (r.ok || r.status === 404) setNote(`Signed out ${s.client || 'that browser'}.`);
    else setErr(describeError(r.error));
    await load();
  }

  async function endOthers() {
    setBusy(true);
    const r = await client.owners.endOtherSessions({ body: mine ? { keep: mine } : {} });
    setBusy(false);
    if (r.ok) setNote(r.data.ended === 1 ? 'Signed out 1 other browser.' : `Signed out ${r.data.ended} other browsers.`);
    else setErr(describeError(r.error));
    await load();
  }

  const others = (sessions ?? []).filter((s) => s.session_id !== mine);
  return (
    <section className="sessions-panel" aria-labelledby="sessions-title" data-testid="sessions-panel">
      <h2 id="sessions-title">Signed-in browsers</h2>
      <p className="muted">
        A browser stays signed in for 30 days after its last use (at most 90 days after it signed in). Sign out any you do not recognise or no longer use.
      </p>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {note && <p role="status">{note}</p>}
      {sessions === null && !err && <p className="muted">Loading…</p>}
      {sessions && (
        <table className="sessions">
          <caption className="sr-only">Browsers signed in as you</caption>
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="sr-only">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => {
              const here = s.session_id === mine;
              const name = s.client || 'Unknown browser';
              return (
                <tr key={s.session_id} data-testid="session-row" data-session={s.session_id} aria-current={here ? 'true' : undefined}>
                  <td>
                    {name} {here && <strong className="badge ok">This browser</strong>}
                  </td>
                  <td>
                    <time dateTime={s.created_at}>{formatTime(s.created_at)}</time>
                  </td>
                  <td>
                    <time dateTime={s.last_used_at}>{formatTime(s.last_used_at)}</time>
                  </td>
                  <td>
                    <button type="button" disabled={busy} onClick={() => void end(s)} aria-label={here ? 'Sign out this browser' : `Sign out ${name}, last used ${formatTime(s.last_used_at)}`}>
                      Sign out
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {sessions && (
        <p>
          <button type="button" disabled={busy || others.length === 0} onClick={() => void endOthers()}>
            Sign out everywhere else
          </button>
        </p>
      )}
    </section>
  );
}
