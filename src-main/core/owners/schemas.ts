import { z } from 'zod';

/** POST /v1/owners: a new human account on this server. */
export const createOwnerBody = z.object({
  name: z.string().min(1).max(80),
  plate_prefix: z.string().regex(/^[A-Z]{2,6}$/, 'must be 2 to 6 capital letters').optional(),
});

/** PATCH /v1/owners/:ownerId: an owner's rights; strict, so a misspelt right is refused, not ignored. */
export const ownerRightsBody = z.strictObject({ allow_runners: z.boolean() });

/** POST /v1/ui/login and /v1/ui/login/preview: the one-time login link's token. */
export const loginLinkBody = z.object({ token: z.string().min(1).max(200) });
