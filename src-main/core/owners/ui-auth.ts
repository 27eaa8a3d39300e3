import { z } from 'zod';
import type { IncomingMessage } from 'node:http';
import type { Core } from '../context.js';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';
import { sameOrigin } from '../http/guard.js';
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

/** Sign-in and sign-out change who the browser is: only a page of this very origin may ask. */
export function requireSameOrigin(core: Core, req: IncomingMessage): void {
  const port = Number(new URL(core.baseUrl).port);
  if (!sameOrigin(req, port)) throw new AppError('FORBIDDEN', 'cross-origin request refused', { reason: 'cross_origin' });
}

const tokenBody = z.object({ token: z.string().min(1).max(200) });

export const uiAuthRoutes: LegacyRoute[] = [
  {
    method: 'POST',
    path: '/v1/ui/login/preview',
    public: true,
    // Who the link signs in as, and whether the page must ask first; the link stays unused.
    handler: ({ core, req, body }) => {
      requireSameOrigin(core, req);
      const { token } = parseWith(tokenBody, body);
      const p = previewLoginLink(core.db, token);
      if (!p.ok) throw linkError(p.why);
      return { owner: { owner_id: p.owner.owner_id, name: p.owner.name, handle: p.owner.handle }, confirm: p.confirm };
    },
  },
  {
    method: 'POST',
    path: '/v1/ui/login',
    public: true,
    handler: ({ core, req, body }) => {
      requireSameOrigin(core, req);
      const { token } = parseWith(tokenBody, body);
      const r = redeemLoginLink(core.db, token);
      if (!r.ok) throw linkError(r.why);
      return new Status(201, {
        session_token: r.sessionId,
        owner: r.owner,
        idle_expires_at: new Date(r.idleExpiresAt).toISOString(),
        expires_at: new Date(r.expiresAt).toISOString(),
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/ui/logout',
    handler: ({ core, req }) => {
      requireSameOrigin(core, req);
      const m = /^Bearer\s+(ars_\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (m) endUiSession(core.db, m[1]!);
      return undefined;
    },
  },
  {
    method: 'POST',
    path: '/v1/events/ticket',
    // EventSource cannot send a header: the page trades its token for a one-use, one-minute
    // ticket and puts that on the stream's URL.
    handler: ({ core, owner }) => new Status(201, createEventsTicket(core.db, owner.owner_id)),
  },
];

/** Expired UI sessions are dropped on a schedule. */
export function startUiSessionSweeper(core: Core): StopStep {
  return repeat({ name: 'UI session sweep', everyMs: 10 * 60_000, log: core.config.log }, () => sweepUiSessions(core.db));
}
