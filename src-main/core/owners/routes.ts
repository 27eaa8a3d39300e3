import { defineRoute, Status, type Route } from '../http/router.js';
import { listOwners, requireOwner } from './store.js';
import { addOwner, setOwnerRunnerRight } from './service.js';
import { createLoginLink } from './login.js';
import { createOwnerBody, ownerRightsBody } from './schemas.js';
import { endOtherUiSessionsUseCase, endUiSessionUseCase, listUiSessionsUseCase } from './use-cases.js';

export const ownerRoutes: Route[] = [
  defineRoute({ method: 'GET', path: '/v1/me', handler: ({ owner }) => owner }),
  // The caller's window sessions (Settings): listed, ended one by one or all but this browser's.
  listUiSessionsUseCase.route,
  endUiSessionUseCase.route,
  endOtherUiSessionsUseCase.route,
  defineRoute({
    method: 'GET',
    path: '/v1/owners',
    // The primary owner's view of who may do what on this machine (allow_runners included):
    // docs/contract.md (the /v1 table: auth primary) keeps it to the primary owner. Other owners use GET /v1/people below.
    auth: 'primary',
    notPrimary: 'only the primary owner may list owners and their rights; GET /v1/people lists the humans on this server',
    handler: ({ core }) => ({ owners: listOwners(core.db) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/people',
    // The directory of humans on this server, names only: a room admin needs it to add a
    // human to a room. No rights, no tokens (docs/security.md).
    handler: ({ core }) => ({ people: listOwners(core.db).map(({ owner_id, name, handle, is_primary }) => ({ owner_id, name, handle, is_primary })) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/owners/:ownerId',
    auth: 'primary',
    body: ownerRightsBody,
    handler: ({ core, owner, params }, { body }) => {
      return setOwnerRunnerRight(core, { ownerId: params.ownerId, byOwnerId: owner.owner_id, allowRunners: body.allow_runners });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/owners',
    auth: 'primary',
    body: createOwnerBody,
    handler: ({ core }, { body }) => {
      return new Status(201, addOwner(core, { name: body.name, platePrefix: body.plate_prefix }));
    },
  }),
  defineRoute({
    // The primary owner hands a login link to another human it added (the UI's "add a human" screen).
    method: 'POST',
    path: '/v1/owners/:id/login-links',
    auth: 'primary',
    handler: ({ core, params }) => {
      const target = requireOwner(core.db, params.id);
      // Minted through the API like /v1/login-links, so the sign-in page asks before it signs in.
      return new Status(201, createLoginLink(core.db, core.baseUrl, target.owner_id, 'confirm'));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/login-links',
    // Anyone with an owner token can mint one and plant it on a page: the UI asks before it signs in with it.
    handler: ({ core, owner }) => new Status(201, createLoginLink(core.db, core.baseUrl, owner.owner_id, 'confirm')),
  }),
];
