import type { Core } from '../core.js';
import type { Route } from '../http/router.js';
import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import type { AnswerOf } from '../../../shared/contracts/contract.js';
import { AppError } from '../errors/app-error.js';
import { createEventsTicket, endUiSession, previewLoginLink, redeemLoginLink, sessionPublicId, sweepUiSessions, type LinkProblem } from './login.js';
import { sha256Hex } from '../util/ids.js';
import { repeat, type StopStep } from '../util/repeat.js';

/**
 * How the UI signs in (docs/security.md, items 5 and 6). The one-time link opens the page;
 * the page exchanges the link for a session token with a POST and keeps the token in
 * localStorage (this origin's only), sending it as `Authorization: Bearer ars_…`. No cookie is set, so nothing
 * reaches other servers on 127.0.0.1 (cookies are not port-scoped; headers set by a page are).
 */

const WHY: Record<LinkProblem, string> = {
  unknown: 'This sign-in link is not valid.',
  used: 'This sign-in link was already used.',
  expired: 'This sign-in link has expired.',
};

function linkError(why: LinkProblem): AppError {
  return new AppError(
    'UNAUTHENTICATED',
    `${WHY[why]} Each link works once, for five minutes. The primary owner gets a fresh one with "npx agent-rooms open" (or the desktop app); anyone else asks the primary owner for one (People, Sign-in link).`,
    { reason: `link_${why}` },
  );
}

/**
 * What Settings shows of the browser that signed in ("Chrome on Linux"): a few known words of its
 * User-Agent, nothing else of it (the header is the client's to write).
 */
export function clientLabel(ua: string | undefined): string {
  if (!ua) return '';
  const browser =
    /Electron\//.test(ua) ? 'Agent Rooms desktop'
    : /Edg\//.test(ua) ? 'Edge'
    : /Firefox\//.test(ua) ? 'Firefox'
    : /Chromium\//.test(ua) ? 'Chromium'
    : /HeadlessChrome\//.test(ua) ? 'Chrome (headless)'
    : /Chrome\//.test(ua) ? 'Chrome'
    : /Safari\//.test(ua) ? 'Safari'
    : '';
  const os = /Windows/.test(ua) ? 'Windows' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X|Macintosh/.test(ua) ? 'macOS' : /Android/.test(ua) ? 'Android' : /Linux/.test(ua) ? 'Linux' : '';
  return [browser, os].filter(Boolean).join(' on ');
}

/** POST /v1/ui/login's answer: this tab's session token (a header, never a cookie) and when it ends. */
function sessionGrant(r: Extract<ReturnType<typeof redeemLoginLink>, { ok: true }>): AnswerOf<typeof contracts.owners.login> {
  return {
    session_token: r.sessionId,
    session_id: sessionPublicId(sha256Hex(r.sessionId)),
    owner: r.owner,
    idle_expires_at: new Date(r.idleExpiresAt).toISOString(),
    expires_at: new Date(r.expiresAt).toISOString(),
  };
}

// Sign-in and sign-out change who the browser is: only a page of this very origin may ask (`origin: 'same'`).

/** Who a link signs in as, and whether the page must ask first; the link stays unused. */
export const previewLoginUseCase = defineUseCase({
  route: { contract: contracts.owners.previewLogin, origin: 'same' },
  handler: ({ core }, { body }) => {
    const p = previewLoginLink(core.db, body.token);
    if (!p.ok) throw linkError(p.why);
    return { owner: { owner_id: p.owner.owner_id, name: p.owner.name, handle: p.owner.handle }, confirm: p.confirm };
  },
});

/** Trades the one-time link for a window session. */
export const signInUseCase = defineUseCase({
  route: { contract: contracts.owners.login, origin: 'same' },
  // Settings shows the session with the label of the browser that signed in (its User-Agent, `clientLabel`).
  handler: ({ core, client }, { body }) => {
    const r = redeemLoginLink(core.db, body.token, clientLabel(client));
    if (!r.ok) throw linkError(r.why);
    return sessionGrant(r);
  },
});

/** Ends the window session the request came with (nothing to end for an owner token). */
export const signOutUseCase = defineUseCase({
  route: { contract: contracts.owners.logout, origin: 'same' },
  handler: ({ core, caller }) => {
    if (caller.owner.ui_session_hash) endUiSession(core.db, caller.owner.ui_session_hash);
    return undefined;
  },
});

/**
 * EventSource cannot send a header: the page trades its token for a one-use, one-minute ticket
 * and puts that on the stream's URL. A ticket asked with a window session is tied to it: revoking
 * the session closes the stream.
 */
export const eventsTicketUseCase = defineUseCase({
  route: { contract: contracts.owners.eventsTicket },
  handler: ({ core, caller }) => createEventsTicket(core.db, caller.ownerId, caller.owner.ui_session_hash),
});

export const uiAuthRoutes: Route[] = [previewLoginUseCase.route, signInUseCase.route, signOutUseCase.route, eventsTicketUseCase.route];

/** Expired UI sessions are dropped on a schedule. */
export function startUiSessionSweeper(core: Core): StopStep {
  return repeat({ name: 'UI session sweep', owner: core, everyMs: 10 * 60_000, log: core.config.log }, () => sweepUiSessions(core.db));
}
