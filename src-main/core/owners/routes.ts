import { z } from 'zod';
import type { Route } from '../http/router.js';
import { Status } from '../http/router.js';
import { createOwner, listOwners, requireOwner } from './store.js';
import { createLoginLink } from './login.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';

export const ownerRoutes: Route[] = [
  { method: 'GET', path: '/v1/me', handler: ({ owner }) => owner },
  {
    method: 'GET',
    path: '/v1/owners',
    // The directory of humans on this server: any room admin needs it to add a human to a room.
    // Only the primary owner creates owners (POST below), and no token is ever listed.
    handler: ({ core }) => ({ owners: listOwners(core.db) }),
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
      return new Status(201, createLoginLink(core.db, core.baseUrl, target.owner_id));
    },
  },
  {
    method: 'POST',
    path: '/v1/login-links',
    handler: ({ core, owner }) => new Status(201, createLoginLink(core.db, core.baseUrl, owner.owner_id)),
  },
];
