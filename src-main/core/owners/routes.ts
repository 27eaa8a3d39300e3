import { defineRoute, Status, type Route } from '../http/router.js';
import { createOwner, listOwners, requireOwner, setAllowRunners } from './store.js';
import { createLoginLink } from './login.js';
import { createOwnerBody, ownerRightsBody } from './schemas.js';

export const ownerRoutes: Route[] = [
  defineRoute({ method: 'GET', path: '/v1/me', handler: ({ owner }) => owner }),
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
      const updated = setAllowRunners(core.db, params.ownerId, body.allow_runners);
      // The wake dispatcher listens: a revoked right ends that owner's running runs at once. An
      // owner's right is news only for that owner and the primary owner who set it (issue 26 F8).
      core.bus.emit({
        type: 'owners.changed',
        owners: [...new Set([updated.owner_id, owner.owner_id])],
        data: { owner_id: updated.owner_id, allow_runners: updated.allow_runners },
      });
      core.bus.emit({ type: 'runners.changed', owners: [updated.owner_id] });
      return updated;
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/owners',
    auth: 'primary',
    body: createOwnerBody,
    handler: ({ core }, { body }) => {
      const created = createOwner(core.db, { name: body.name, platePrefix: body.plate_prefix });
      core.bus.emit({ type: 'owners.changed' });
      return new Status(201, created);
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
