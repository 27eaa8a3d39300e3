import { useEffect, useState } from 'react';
import { borrowSession, get, getSessionToken, previewLogin, signIn } from '../api';
import type { LoginPreview, Me } from '../types';

type State =
  | { kind: 'checking' }
  | { kind: 'confirm'; preview: LoginPreview; current: Me | null }
  | { kind: 'signing-in' }
  | { kind: 'failed'; message: string };

/**
 * Signs in with a one-time link. A link minted through the API (anyone with an owner token
 * can plant one on a page) and any link that would replace this tab's session of another
 * owner are confirmed by the human first; the exchange itself is a same-origin POST.
 */
export function SignIn({ token, onDone }: { token: string; onDone: (signedIn: boolean) => void }) {
  const [state, setState] = useState<State>({ kind: 'checking' });

  async function exchange() {
    setState({ kind: 'signing-in' });
    const r = await signIn(token);
    if (r.ok) onDone(true);
    else setState({ kind: 'failed', message: r.error.message });
  }

  useEffect(() => {
    let live = true;
    void (async () => {
      // A session open in another tab counts as this tab's: signing in here would replace it.
      await borrowSession();
      const [p, me] = await Promise.all([previewLogin(token), getSessionToken() ? get<Me>('/v1/me') : Promise.resolve(null)]);
      if (!live) return;
      if (!p.ok) return setState({ kind: 'failed', message: p.error.message });
      const current = me && me.ok ? me.data : null;
      const replacesOther = current !== null && current.owner_id !== p.data.owner.owner_id;
      if (!p.data.confirm && !replacesOther) return void exchange();
      setState({ kind: 'confirm', preview: p.data, current });
    })();
    return () => {
      live = false;
    };
  }, [token]);

  if (state.kind === 'checking' || state.kind === 'signing-in') {
    return (
      <main className="signed-out" aria-busy="true">
        <h1>Agent Rooms</h1>
        <p>Signing in…</p>
      </main>
    );
  }
  if (state.kind === 'failed') {
    return (
      <main className="signed-out">
        <h1>Sign-in link not valid</h1>
        <p role="alert">{state.message}</p>
      </main>
    );
  }
  const { owner } = state.preview;
  const other = state.current && state.current.owner_id !== owner.owner_id ? state.current : null;
  return (
    <main className="signed-out">
      <h1>Sign in to Agent Rooms?</h1>
      <p>
        This link signs you in as <strong>{owner.name}</strong> <span className="muted">{owner.handle}</span>.
      </p>
      {other && (
        <p role="alert">
          You are signed in as <strong>{other.name}</strong> in this tab. Signing in replaces that session.
        </p>
      )}
      <p>Continue only if you opened this link yourself: a link opened by another page could sign you in to someone else&apos;s account.</p>
      <p>
        <button type="button" data-testid="confirm-sign-in" onClick={() => void exchange()}>
          Sign in as {owner.name}
        </button>{' '}
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
      </p>
    </main>
  );
}
