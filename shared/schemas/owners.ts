import { z } from 'zod';

/**
 * The owner records of the human API (/v1/me, owners, sign-in), declared once here; shared/api-types.ts
 * derives the UI's types from them (`z.output`, types only) and test/contract/api-types.check.ts
 * checks the server's answers against them at compile time.
 */

/** GET /v1/me */
export const meRecord = z.object({
  owner_id: z.string(),
  name: z.string(),
  handle: z.string(),
  plate_prefix: z.string(),
  is_primary: z.boolean(),
  /** May configure runners: the primary owner always, others when it allowed them (docs/security.md). */
  allow_runners: z.boolean().optional(),
});

export const ownerRecord = z.object({
  owner_id: z.string(),
  name: z.string(),
  handle: z.string(),
  is_primary: z.boolean().optional(),
  /** May configure runners (commands run as this machine's user); only the primary owner changes it. */
  allow_runners: z.boolean().optional(),
});

/** POST /v1/ui/login/preview: who a one-time login link signs in as, and whether the page must ask before using it. */
export const loginPreview = z.object({
  owner: z.object({ owner_id: z.string(), name: z.string(), handle: z.string() }),
  confirm: z.boolean(),
});

/** POST /v1/owners (the primary owner): the new owner; its token is for the command line, the UI hands out a login link. */
export const createdOwner = z.object({ owner: ownerRecord });

/** POST /v1/ui/login: this tab's session token (sent as a header, never a cookie). */
export const sessionGrant = z.object({ session_token: z.string() });

/** POST /v1/events/ticket: a one-use ticket for the event stream's URL. */
export const eventsTicket = z.object({ ticket: z.string() });

/** POST /v1/owners/:id/login-links (and /v1/login-links): a one-time sign-in link. */
export const loginLink = z.object({ url: z.string(), expires_at: z.string() });
