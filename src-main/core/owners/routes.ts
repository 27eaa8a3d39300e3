import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { createOwner, listOwners, requireOwner, setAllowRunners } from './store.js';
import { createLoginLink } from './login.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';

export const ownerRoutes: LegacyRoute[] = [
  { method: 'GET', path: '/v1/me', handler: ({ owner }) => owner },
  {
    method: 'GET',
    path: '/v1/owners',
    // The primary owner's view of who may do what on this machine (allow_runners included):
    // decisions.md keeps it to the primary owner. Other owners use the directory below.
    handler: ({ core, owner }) => {
      if (!owner.is_primary) {
        throw new AppError('FORBIDDEN', 'only the primary owner may list owners and their rights; GET /v1/people lists the humans on this server', {
          reason: 'not_primary_owner',
        });
      }
      return { owners: listOwners(core.db) };
    },
  },
  {
    method: 'GET',
    path: '/v1/people',
    // The directory of humans on this server, names only: a room admin needs it to add a
    // human to a room. No rights, no tokens (docs/security.md).
    handler: ({ core }) => ({ people: listOwners(core.db).map(({ owner_id, name, handle, is_primary }) => ({ owner_id, name, handle, is_primary })) }),
  },
  {
    method: 'PATCH',
    path: '/v1/owners/:ownerId',
    handler: ({ core, owner, params, body }) => {
      if (!owner.is_primary) {
        throw new AppError('FORBIDDEN', "only the primary owner may change another owner's rights", { reason: 'not_primary_owner' });
      }
      const input = parseWith(z.strictObject({ allow_runners: z.boolean() }), body);
      const updated = setAllowRunners(core.db, params.ownerId!, input.allow_runners);
      // The wake dispatcher listens: a revoked right ends that owner's running runs at once.
      core.bus.emit({ type: 'owners.changed', data: { owner_id: updated.owner_id, allow_runners: updated.allow_runners } });
      core.bus.emit({ type: 'runners.changed', owners: [updated.owner_id] });
      return updated;
    },
  },
  {
    method: 'POST',
    path: '/v1/owners',
    handler: ({ core, owner, body }) => {
      if (!owner.is_primary) throw new AppError('FORBIDDEN', 'only the primary owner may create owners');
      const input = parseWith(
        z.object({ name: z.string().min(1).max(80), plate_prefix: z.string().regex(/^[A-Z]{2,6}$/, 'must be 2 to 6 capital letters').optional() }),
        body,
      );
      const created = createOwner(core.db, { name: input.name, platePrefix: input.plate_prefix });
      core.bus.emit({ type: 'owners.changed' });
      return new Status(201, created);
    },
  },
  {
    // The primary owner hands a login link to another human it added (the UI's "add a human" screen).
    method: 'POST',
    path: '/v1/owners/:id/login-links',
    handler: ({ core, owner, params }) => {
      if (!owner.is_primary) throw new AppError('FORBIDDEN', 'only the primary owner may create login links for other owners');
      const target = requireOwner(core.db, params.id!);
      // Minted through the API like /v1/login-links, so the sign-in page asks before it signs in.
      return new Status(201, createLoginLink(core.db, core.baseUrl, target.owner_id, 'confirm'));
    },
  },
  {
    method: 'POST',
    path: '/v1/login-links',
    // Anyone with an owner token can mint one and plant it on a page: the UI asks before it signs in with it.
    handler: ({ core, owner }) => new Status(201, createLoginLink(core.db, core.baseUrl, owner.owner_id, 'confirm')),
  },
];
