import type { IncomingMessage } from 'node:http';
import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import { sameOrigin } from '../http/guard.js';
import { ownerByToken, type Owner } from './store.js';
import { holdSessionStream, redeemEventsTicket, uiSession } from './login.js';

/**
 * The human API's credential: an owner token or the UI's session token (`ars_…`), both as
 * `Authorization: Bearer`; for the event stream only, a one-use ticket on the URL. No cookie:
 * cookies are not port-scoped, so one would reach every other server on 127.0.0.1.
 */
/** A browser's own word that the request comes from another origin (`Sec-Fetch-Site`; absent outside browsers). */
function crossSiteFetch(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}

export function authenticateOwner(core: Core, req: IncomingMessage, url: URL, port: number): Owner {
  const h = req.headers.authorization;
  if (h) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    const token = m?.[1] ?? '';
    if (token.startsWith('ars_')) {
      // The window's token is for the window's own origin only, reads included: another page that
      // somehow held it (it is in this origin's localStorage, which no other origin can read) cannot
      // use it from its origin, nor slide the session's expiry: checked before the session is read
      // (and renewed) (docs/security.md, item 5).
      if (!sameOrigin(req, port) || crossSiteFetch(req)) throw new AppError('FORBIDDEN', 'cross-origin request refused', { reason: 'cross_origin' });
      const session = uiSession(core.db, token);
      if (!session) throw new AppError('UNAUTHENTICATED', 'the UI session ended (signed out, revoked, or unused for 30 days): sign in again', { reason: 'session_ended' });
      // The session rides with its owner: sign-out ends it, an events ticket asked with it is tied to it.
      return { ...session.owner, ui_session_hash: session.hash };
    }
    const owner = m ? ownerByToken(core.db, token) : undefined;
    if (!owner) throw new AppError('UNAUTHENTICATED', 'invalid owner token');
    return owner;
  }
  const ticket = url.pathname === '/v1/events' && req.method === 'GET' ? url.searchParams.get('ticket') : null;
  if (ticket) {
    const t = redeemEventsTicket(core.db, ticket);
    if (!t) throw new AppError('UNAUTHENTICATED', 'the events ticket is unknown, used or expired: ask POST /v1/events/ticket for another', { reason: 'ticket_invalid' });
    // A stream opened for a window session closes when that session is revoked (docs/security.md, item 5).
    if (t.session) holdSessionStream(core.db, t.session, req.socket);
    return t.owner;
  }
  throw new AppError('UNAUTHENTICATED', 'sign in: present an owner token (or the UI session token) as Authorization: Bearer, or use a login link');
}
