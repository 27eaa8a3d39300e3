import { useEffect, useState } from 'react';
import { describeError, getSessionToken, type ApiError } from '../api';
import { client } from '../client';
import { previewLogin, signIn } from '../session-api';
import { lastSignedIn } from '../stores/session';
import type { LoginPreview, Me } from '../types';

/**
 * How to get a sign-in link, said to whoever is reading: the primary owner mints one on this
 * machine (`npx agent-rooms open`, from the clone or wherever it is installed, or the desktop
 * app), anyone else gets one from the primary owner's People page. A teammate who was signed in
 * here is not told to run the command: it makes a link for the primary owner, not for her.
 */
export function HowToSignIn() {
  const last = lastSignedIn();
  if (last && !last.is_primary) {
    return (
      <div className="how-to-sign-in" data-testid="how-to-sign-in">
        <p>
          To sign in again as <strong>{last.name}</strong>, ask {last.primary_name ? <><strong>{last.primary_name}</strong>, the primary owner of this server,</> : 'the primary owner of this server'} for a
          sign-in link: they make one for you on their People page (<em>Sign-in link</em>). Each link works once, for five minutes.
        </p>
      </div>
    );
  }
  return (
    <div className="how-to-sign-in" data-testid="how-to-sign-in">
      <p>Sign in with a one-time sign-in link. Each link works once, for five minutes. To get one:</p>
      <ul>
        <li>
          <strong>The primary owner</strong> (who runs this server): run <code>npx agent-rooms open</code> in the Agent Rooms folder (or{' '}
          <code>agent-rooms open</code> where it is installed; add <code>--home DIR</code> if the server uses another home), or, with the desktop app, its
          menu: <em>Open Agent Rooms</em>, or <em>Copy sign-in link for a browser</em>.
        </li>
        <li>
          <strong>Anyone else</strong>: ask the primary owner for a sign-in link; they make one for you on their People page (<em>Sign-in link</em>).
        </li>
      </ul>
    </div>
  );
}

/** No session in this browser (or it ended): how to get back in. */
export function SignedOut() {
  return (
    <main className="signed-out">
      <h1>Agent Rooms</h1>
      <p>You are not signed in.</p>
      <HowToSignIn />
    </main>
  );
}

/** What was wrong with the link, in a sentence (the ways to a new one follow on the page). */
function linkMessage(e: ApiError): string {
  if (e.reason === 'link_used') return 'This sign-in link was already used.';
  if (e.reason === 'link_expired') return 'This sign-in link has expired.';
  if (e.reason === 'link_unknown') return 'This sign-in link is not valid.';
  return describeError(e);
}

type State =
  | { kind: 'checking' }
  | { kind: 'confirm'; preview: LoginPreview; current: Me | null }
  | { kind: 'signing-in' }
  | { kind: 'failed'; message: string };

/**
 * Signs in with a one-time link. A link minted through the API (anyone with an owner token
 * can plant one on a page) and any link that would replace this browser's session of another
 * owner are confirmed by the human first; the exchange itself is a same-origin POST. A link
 * opened while this browser is already signed in (used, expired, or for the same owner) goes to
 * the app instead of a dead end.
 */
export function SignIn({ token, onDone }: { token: string; onDone: (signedIn: boolean) => void }) {
  const [state, setState] = useState<State>({ kind: 'checking' });

  async function exchange() {
    setState({ kind: 'signing-in' });
    const r = await signIn(token);
    if (r.ok) onDone(true);
    else setState({ kind: 'failed', message: linkMessage(r.error) });
  }

  useEffect(() => {
    let live = true;
    void (async () => {
      // The browser's session (localStorage, shared by its tabs): signing in here would replace it.
      const [p, me] = await Promise.all([previewLogin(token), getSessionToken() ? client.owners.me() : Promise.resolve(null)]);
      if (!live) return;
      const current = me && me.ok ? me.data : null;
      // Already signed in: a used or expired link, or one for the same owner, changes nothing.
      if (current && (!p.ok || p.data.owner.owner_id === current.owner_id)) return onDone(true);
      if (!p.ok) return setState({ kind: 'failed', message: linkMessage(p.error) });
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
        <HowToSignIn />
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
          You are signed in as <strong>{other.name}</strong> in this browser. Signing in replaces that session (in every tab).
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
