import type { IncomingMessage } from 'node:http';
import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import { sameOrigin } from '../http/guard.js';
import { ownerByToken, type Owner } from './store.js';
import { ownerBySession, redeemEventsTicket } from './login.js';

/**
 * The human API's credential: an owner token or the UI's session token (`ars_…`), both as
 * `Authorization: Bearer`; for the event stream only, a one-use ticket on the URL. No cookie:
 * cookies are not port-scoped, so one would reach every other server on 127.0.0.1.
 */
export function authenticateOwner(core: Core, req: IncomingMessage, url: URL, port: number): Owner {
  const h = req.headers.authorization;
  if (h) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
    const token = m?.[1] ?? '';
    if (token.startsWith('ars_')) {
      const owner = ownerBySession(core.db, token);
      if (!owner) throw new AppError('UNAUTHENTICATED', 'the UI session ended (signed out, or idle too long): sign in again', { reason: 'session_ended' });
      if (req.method !== 'GET' && req.method !== 'HEAD' && !sameOrigin(req, port)) throw new AppError('FORBIDDEN', 'cross-origin request refused');
      return owner;
    }
    const owner = m ? ownerByToken(core.db, token) : undefined;
    if (!owner) throw new AppError('UNAUTHENTICATED', 'invalid owner token');
    return owner;
  }
  const ticket = url.pathname === '/v1/events' && req.method === 'GET' ? url.searchParams.get('ticket') : null;
  if (ticket) {
    const owner = redeemEventsTicket(core.db, ticket);
    if (!owner) throw new AppError('UNAUTHENTICATED', 'the events ticket is unknown, used or expired: ask POST /v1/events/ticket for another', { reason: 'ticket_invalid' });
    return owner;
  }
  throw new AppError('UNAUTHENTICATED', 'sign in: present an owner token (or the UI session token) as Authorization: Bearer, or use a login link');
}
