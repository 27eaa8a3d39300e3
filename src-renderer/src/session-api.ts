/**
 * The window's session over the client (contracts.owners): what a one-time link signs in as,
 * signing in and out, and the event stream's URL. Apart from api.ts because the client is built
 * on api.ts; the token itself is kept there (`getSessionToken`).
 */
import { contracts } from '../../shared/contracts/index';
import { api, getSessionToken, setSessionToken, type ApiResult } from './api';
import { client, pathOf, urlOf } from './client';
import type { SessionGrant } from './types';

/** Whom a one-time link signs in as, and whether the page must ask first; the link stays unused. */
export const previewLogin = (token: string) => client.owners.previewLogin({ body: { token } });

/**
 * Trades the one-time link for this browser's session token. A session of another owner it
 * replaces is ended on the server too, so no forgotten token stays valid for 30 days.
 */
export async function signIn(token: string): Promise<ApiResult<SessionGrant>> {
  const before = getSessionToken();
  const r = await client.owners.login({ body: { token } });
  if (r.ok) {
    setSessionToken(r.data.session_token);
    if (before && before !== r.data.session_token) {
      // Sent with the replaced token, which this browser no longer holds.
      const logout = contracts.owners.logout;
      void api(logout.method, pathOf(logout), {}, undefined, { session: logout.session, token: before }).catch(() => undefined);
    }
  }
  return r;
}

/** Ends the session on the server and forgets the token here. */
export async function signOut(): Promise<void> {
  if (getSessionToken()) await client.owners.logout();
  setSessionToken(null);
}

/** A one-use ticket for the event stream's URL (EventSource cannot send a header). */
export async function eventsUrl(): Promise<string | null> {
  const r = await client.owners.eventsTicket();
  return r.ok ? urlOf(contracts.events.stream, { query: { ticket: r.data.ticket } }) : null;
}
