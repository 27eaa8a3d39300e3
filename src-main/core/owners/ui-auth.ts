import type { Core } from '../core.js';
import { defineRoute, Status, type Route } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { loginLinkBody } from './schemas.js';
import { createEventsTicket, endUiSession, previewLoginLink, redeemLoginLink, sweepUiSessions, type LinkProblem } from './login.js';
import { repeat, type StopStep } from '../util/repeat.js';

/**
 * How the UI signs in (docs/security.md, items 5 and 6). The one-time link opens the page;
 * the page exchanges the link for a session token with a POST and keeps the token in
 * sessionStorage, sending it as `Authorization: Bearer ars_…`. No cookie is set, so nothing
 * reaches other servers on 127.0.0.1 (cookies are not port-scoped; headers set by a page are).
 */

const WHY: Record<LinkProblem, string> = {
  unknown: 'This login link is not valid.',
  used: 'This login link was already used.',
  expired: 'This login link has expired.',
};

function linkError(why: LinkProblem): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    `${WHY[why]} Run "agent-rooms open" (or use the desktop app) for a fresh link; each link works once, for five minutes.`,
    { reason: `link_${why}` },
  );
}

/** Sign-in and sign-out change who the browser is: only a page of this very origin may ask (`origin: 'same'`). */
/** POST /v1/ui/login's answer: this tab's session token (a header, never a cookie) and when it ends. */
export function sessionGrant(r: Extract<ReturnType<typeof redeemLoginLink>, { ok: true }>) {
  return {
    session_token: r.sessionId,
    owner: r.owner,
    idle_expires_at: new Date(r.idleExpiresAt).toISOString(),
    expires_at: new Date(r.expiresAt).toISOString(),
  };
}

export const uiAuthRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/ui/login/preview',
    auth: 'public',
    origin: 'same',
    body: loginLinkBody,
    // Who the link signs in as, and whether the page must ask first; the link stays unused.
    handler: ({ core }, { body }) => {
      const p = previewLoginLink(core.db, body.token);
      if (!p.ok) throw linkError(p.why);
      return { owner: { owner_id: p.owner.owner_id, name: p.owner.name, handle: p.owner.handle }, confirm: p.confirm };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/ui/login',
    auth: 'public',
    origin: 'same',
    body: loginLinkBody,
    handler: ({ core }, { body }) => {
      const r = redeemLoginLink(core.db, body.token);
      if (!r.ok) throw linkError(r.why);
      return new Status(201, sessionGrant(r));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/ui/logout',
    origin: 'same',
    handler: ({ core, req }) => {
      const session = /^Bearer\s+(ars_\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (session) endUiSession(core.db, session);
      return undefined;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/events/ticket',
    // EventSource cannot send a header: the page trades its token for a one-use, one-minute
    // ticket and puts that on the stream's URL.
    handler: ({ core, owner }) => new Status(201, createEventsTicket(core.db, owner.owner_id)),
  }),
];

/** Expired UI sessions are dropped on a schedule. */
export function startUiSessionSweeper(core: Core): StopStep {
  return repeat({ name: 'UI session sweep', owner: core, everyMs: 10 * 60_000, log: core.config.log }, () => sweepUiSessions(core.db));
}
