import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { AppError } from '../errors/app-error.js';
import { listOwners, requireOwner, type Owner } from './store.js';
import { addOwner, setOwnerRunnerRight } from './service.js';
import { createLoginLink, listUiSessions, revokeUiSessions } from './login.js';

/**
 * The owners' use cases, humans only (no tool): who is signed in and the window's sessions, the
 * humans of this server and their rights (the primary owner's), and sign-in links.
 */

/** The owner as GET /v1/me shows it: the record, without the window session the request came with. */
function shownOwner({ ui_session_hash: _session, ...owner }: Owner): Owner {
  return owner;
}

export const meUseCase = defineUseCase({
  route: { contract: contracts.owners.me },
  handler: ({ caller }) => shownOwner(caller.owner),
});

/*
 * The caller's own window sessions (docs/security.md, item 5): Settings lists them and ends any.
 * Only the caller's sessions are ever read or ended (by owner id in every query); another
 * owner's session id matches nothing (404).
 */

export const listUiSessionsUseCase = defineUseCase({
  route: { contract: contracts.owners.sessions },
  handler: ({ core, caller }) => ({ sessions: listUiSessions(core.db, caller.ownerId) }),
});

export const endUiSessionUseCase = defineUseCase({
  route: { contract: contracts.owners.endSession },
  handler: ({ core, caller }, { params }) => {
    const ended = revokeUiSessions(core.db, caller.ownerId, { only: params.sessionId });
    if (!ended) throw new AppError('NOT_FOUND', 'no such session of yours (already ended?)');
    return { ended };
  },
});

/** "Sign out everywhere else": every session of the caller but `keep` (none kept without it). */
export const endOtherUiSessionsUseCase = defineUseCase({
  route: { contract: contracts.owners.endOtherSessions },
  handler: ({ core, caller }, { body }) => ({ ended: revokeUiSessions(core.db, caller.ownerId, { keep: body.keep }) }),
});

/**
 * The primary owner's view of who may do what on this machine (allow_runners included): the
 * contract keeps it to the primary owner. Other owners use GET /v1/people.
 */
export const listOwnersUseCase = defineUseCase({
  route: {
    contract: contracts.owners.list,
    notPrimary: 'only the primary owner may list owners and their rights; GET /v1/people lists the humans on this server',
  },
  handler: ({ core }) => ({ owners: listOwners(core.db) }),
});

/** The directory of humans on this server, names only: a room admin needs it to add a human to a room. No rights, no tokens (docs/security.md). */
export const listPeopleUseCase = defineUseCase({
  route: { contract: contracts.owners.people },
  handler: ({ core }) => ({ people: listOwners(core.db).map(({ owner_id, name, handle, is_primary }) => ({ owner_id, name, handle, is_primary })) }),
});

export const setOwnerRightsUseCase = defineUseCase({
  route: { contract: contracts.owners.update },
  handler: ({ core, caller }, { params, body }) => setOwnerRunnerRight(core, { ownerId: params.ownerId, byOwnerId: caller.ownerId, allowRunners: body.allow_runners }),
});

export const addOwnerUseCase = defineUseCase({
  route: { contract: contracts.owners.create },
  handler: ({ core }, { body }) => addOwner(core, { name: body.name, platePrefix: body.plate_prefix }),
});

/** The primary owner hands a login link to another human it added (the UI's "add a human" screen). */
export const loginLinkForOwnerUseCase = defineUseCase({
  route: { contract: contracts.owners.loginLinkFor },
  handler: ({ core }, { params }) => {
    const target = requireOwner(core.db, params.id);
    // Minted through the API like POST /v1/login-links, so the sign-in page asks before it signs in.
    return createLoginLink(core.db, core.baseUrl, target.owner_id, 'confirm');
  },
});

/** Anyone with an owner token can mint one and plant it on a page: the UI asks before it signs in with it. */
export const loginLinkUseCase = defineUseCase({
  route: { contract: contracts.owners.loginLink },
  handler: ({ core, caller }) => createLoginLink(core.db, core.baseUrl, caller.ownerId, 'confirm'),
});
