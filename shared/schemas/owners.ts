import { z } from 'zod';

/**
 * The owner records of the human API (/v1/me, owners, sign-in), declared once here; shared/api-types.ts
 * derives the UI's types from them (`z.output`, types only), and the server's `Owner` is the
 * `z.output` of `meRecord` (docs/architecture.md "Contracts").
 */

/** GET /v1/me: the signed-in owner (auth/callers.ts `Owner` is its `z.output`; GET /v1/owners lists these too). */
export const meRecord = z.object({
  owner_id: z.string(),
  name: z.string(),
  handle: z.string(),
  plate_prefix: z.string(),
  is_primary: z.boolean(),
  /** May configure runners: the primary owner always, others when it allowed them (docs/security.md). */
  allow_runners: z.boolean(),
  created_at: z.string(),
});

/** An owner as GET /v1/owners (all of meRecord) and GET /v1/people (no rights) both show it: what the UI reads of either. */
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

/** GET /v1/people: a human on this server as any owner may see it, names only (no rights). */
export const personRecord = z.object({ owner_id: z.string(), name: z.string(), handle: z.string(), is_primary: z.boolean() });

/** POST /v1/owners (the primary owner): the new owner and its token, shown once; the token is for the command line, the UI hands out a login link. */
export const createdOwner = z.object({ owner: meRecord, token: z.string() });

/**
 * POST /v1/ui/login: this tab's session token (sent as a header, never a cookie), the id Settings
 * names it by, who it signs in, and when it ends: unused for `idle_expires_at`, at the latest `expires_at`.
 */
export const sessionGrant = z.object({
  session_token: z.string(),
  session_id: z.string(),
  owner: meRecord,
  idle_expires_at: z.string(),
  expires_at: z.string(),
});

/** POST /v1/events/ticket: a one-use ticket for the event stream's URL, good until `expires_at`. */
export const eventsTicket = z.object({ ticket: z.string(), expires_at: z.string() });

/** POST /v1/owners/:id/login-links (and /v1/login-links): a one-time sign-in link. */
export const loginLink = z.object({ url: z.string(), expires_at: z.string() });

/**
 * GET /v1/me/sessions: one of the owner's window sessions (docs/security.md, item 5). `session_id`
 * is derived from the token's hash (the page derives its own to mark "this browser"); the token
 * itself is never shown. `expires_at`: when it ends unless used again (30 days after its last use,
 * at most 90 after sign-in).
 */
export const uiSessionRecord = z.object({
  session_id: z.string(),
  /** The browser that signed in, in a few words ("Chrome on Linux"); '' when it did not say. */
  client: z.string(),
  created_at: z.string(),
  last_used_at: z.string(),
  expires_at: z.string(),
});

export const uiSessionList = z.object({ sessions: z.array(uiSessionRecord) });

/** DELETE /v1/me/sessions/:sessionId and POST /v1/me/sessions/end-others: how many sessions ended. */
export const uiSessionsEnded = z.object({ ended: z.number().int() });

/** POST /v1/me/sessions/end-others: the one session to keep (the caller's own, "this browser"). */
export const endOtherSessionsInput = z.strictObject({ keep: z.string().regex(/^uis_[0-9a-f]{16}$/, 'a session id (uis_…)').optional() });
