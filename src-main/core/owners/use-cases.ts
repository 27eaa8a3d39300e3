import { z } from 'zod';
import { defineUseCase } from '../usecase/define.js';
import { AppError } from '../errors/app-error.js';
import { endOtherSessionsInput, uiSessionList, uiSessionsEnded } from '../../../shared/schemas/owners.js';
import { listUiSessions, revokeUiSessions } from './login.js';

/**
 * The caller's own window sessions (docs/security.md, item 5): Settings lists them and ends any.
 * Only the caller's sessions are ever read or ended (by owner id in every query); another
 * owner's session id matches nothing (404). Humans only: no tool.
 */

export const listUiSessionsUseCase = defineUseCase({
  input: z.object({}),
  output: uiSessionList,
  handler: ({ core, caller }) => ({ sessions: listUiSessions(core.db, caller.ownerId) }),
  route: { method: 'GET', path: '/v1/me/sessions' },
});

export const endUiSessionUseCase = defineUseCase({
  input: z.object({ session_id: z.string().max(40) }),
  output: uiSessionsEnded,
  handler: ({ core, caller }, input) => {
    const ended = revokeUiSessions(core.db, caller.ownerId, { only: input.session_id });
    if (!ended) throw new AppError('NOT_FOUND', 'no such session of yours (already ended?)');
    return { ended };
  },
  route: { method: 'DELETE', path: '/v1/me/sessions/:sessionId', input: ({ params }) => ({ session_id: params.sessionId }) },
});

/** "Sign out everywhere else": every session of the caller but `keep` (none kept without it). */
export const endOtherUiSessionsUseCase = defineUseCase({
  input: endOtherSessionsInput,
  output: uiSessionsEnded,
  handler: ({ core, caller }, input) => ({ ended: revokeUiSessions(core.db, caller.ownerId, { keep: input.keep }) }),
  route: { method: 'POST', path: '/v1/me/sessions/end-others' },
});
