import { z } from 'zod';
import { endpoint, noContent } from './contract.js';
import {
  createdOwner,
  endOtherSessionsInput,
  eventsTicket,
  loginLink,
  loginPreview,
  meRecord,
  personRecord,
  sessionGrant,
  uiSessionList,
  uiSessionsEnded,
} from '../schemas/owners.js';

/**
 * The owner endpoints (docs/security.md, items 1, 5 and 6): who is signed in and the window's
 * sessions, the humans of this server and their rights, sign-in links, and how the window signs
 * in and out. The session endpoints say so (`session`), so the window sends them even while the
 * server is known to be away and reads their 401 as an answer.
 */

/** POST /v1/owners: a new human account on this server. */
export const createOwnerBody = z.object({
  name: z.string().min(1).max(80),
  plate_prefix: z.string().regex(/^[A-Z]{2,6}$/, 'must be 2 to 6 capital letters').optional(),
});

/** PATCH /v1/owners/:ownerId: an owner's rights; strict, so a misspelt right is refused, not ignored. */
export const ownerRightsBody = z.strictObject({ allow_runners: z.boolean() });

/** POST /v1/ui/login and /v1/ui/login/preview: the one-time login link's token. */
export const loginLinkBody = z.object({ token: z.string().min(1).max(200) });

export const owners = {
  me: endpoint({
    method: 'GET',
    path: '/v1/me',
    summary: 'The signed-in owner.',
    output: meRecord,
    session: 'identity',
  }),
  sessions: endpoint({
    method: 'GET',
    path: '/v1/me/sessions',
    summary: 'The browsers signed in as the caller, the most recently used first.',
    output: uiSessionList,
  }),
  endSession: endpoint({
    method: 'DELETE',
    path: '/v1/me/sessions/:sessionId',
    summary: 'Signs out one browser of the caller’s.',
    output: uiSessionsEnded,
  }),
  endOtherSessions: endpoint({
    method: 'POST',
    path: '/v1/me/sessions/end-others',
    summary: 'Signs out every browser of the caller’s but the one kept.',
    body: endOtherSessionsInput,
    output: uiSessionsEnded,
  }),
  list: endpoint({
    method: 'GET',
    path: '/v1/owners',
    summary: 'Every owner of this server with its rights (the primary owner’s view).',
    auth: 'primary',
    output: z.object({ owners: z.array(meRecord) }),
  }),
  people: endpoint({
    method: 'GET',
    path: '/v1/people',
    summary: 'The humans of this server, names only (whom a room admin may add).',
    output: z.object({ people: z.array(personRecord) }),
  }),
  update: endpoint({
    method: 'PATCH',
    path: '/v1/owners/:ownerId',
    summary: 'Grants or takes back an owner’s right to configure runners.',
    auth: 'primary',
    body: ownerRightsBody,
    output: meRecord,
  }),
  create: endpoint({
    method: 'POST',
    path: '/v1/owners',
    summary: 'Adds a human to this server.',
    auth: 'primary',
    body: createOwnerBody,
    output: createdOwner,
    status: 201,
  }),
  loginLinkFor: endpoint({
    method: 'POST',
    path: '/v1/owners/:id/login-links',
    summary: 'A one-time sign-in link for another owner (the page asks before it signs in).',
    auth: 'primary',
    output: loginLink,
    status: 201,
  }),
  loginLink: endpoint({
    method: 'POST',
    path: '/v1/login-links',
    summary: 'A one-time sign-in link for the caller (the page asks before it signs in).',
    output: loginLink,
    status: 201,
  }),
  previewLogin: endpoint({
    method: 'POST',
    path: '/v1/ui/login/preview',
    summary: 'Whom a sign-in link signs in, and whether the page must ask first; the link stays unused.',
    auth: 'public',
    body: loginLinkBody,
    output: loginPreview,
    session: 'identity',
  }),
  login: endpoint({
    method: 'POST',
    path: '/v1/ui/login',
    summary: 'Trades a one-time sign-in link for this browser’s session token.',
    auth: 'public',
    body: loginLinkBody,
    output: sessionGrant,
    status: 201,
    session: 'identity',
  }),
  logout: endpoint({
    method: 'POST',
    path: '/v1/ui/logout',
    summary: 'Ends the window session the request came with.',
    output: noContent,
    answer: 'empty',
    session: 'identity',
  }),
  eventsTicket: endpoint({
    method: 'POST',
    path: '/v1/events/ticket',
    summary: 'A one-use, one-minute ticket for the event stream’s URL (EventSource sends no header).',
    output: eventsTicket,
    status: 201,
    session: 'ticket',
  }),
};
