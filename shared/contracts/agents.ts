import { z } from 'zod';
import { endpoint } from './contract.js';
import { SCOPE_NAMES, type ScopeName } from '../scopes.js';
import { agentRecord, credentialRecord, mintedCredential } from '../schemas/agents.js';

/**
 * The agent endpoints (docs/security.md): the caller's own agents, their credentials and devices,
 * and the passport an agent mints with its credential. Another owner's agent, credential or
 * device is not found.
 */

/** POST /v1/agents: a new agent of the calling owner; every scope unless `scopes` narrows it. */
export const createAgentBody = z.object({ name: z.string().min(1).max(80), scopes: z.array(z.enum(SCOPE_NAMES as [ScopeName, ...ScopeName[]])).optional() });

/** POST /v1/agents/:plate/credentials: the device the credential is for, optional. */
export const createCredentialBody = z.object({ device: z.string().min(1).max(80).optional() });

/** POST /v1/auth/passport: the MCP resource the passport is for, optional. */
export const passportBody = z.object({ resource: z.string().max(300).optional() });

export const agents = {
  create: endpoint({
    method: 'POST',
    path: '/v1/agents',
    summary: 'Adds an agent of the caller’s.',
    body: createAgentBody,
    output: agentRecord.pick({ agent_id: true, plate: true, name: true, handle: true, owner: true, scopes: true }),
    status: 201,
  }),
  list: endpoint({
    method: 'GET',
    path: '/v1/agents',
    summary: 'The caller’s agents, each with its presence.',
    output: z.object({ agents: z.array(agentRecord) }),
  }),
  read: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate',
    summary: 'One agent of the caller’s, with its presence.',
    output: agentRecord,
  }),
  mint: endpoint({
    method: 'POST',
    path: '/v1/agents/:plate/credentials',
    summary: 'A new credential (and device) for one of the caller’s agents, shown this once.',
    body: createCredentialBody,
    output: mintedCredential,
    status: 201,
  }),
  credentials: endpoint({
    method: 'GET',
    path: '/v1/agents/:plate/credentials',
    summary: 'An agent’s credentials, never their secrets.',
    output: z.object({ credentials: z.array(credentialRecord) }),
  }),
  revoke: endpoint({
    method: 'POST',
    path: '/v1/agents/:plate/revoke',
    summary: 'Revokes an agent and closes its live sessions.',
    output: z.object({ revoked: z.literal(true), plate: z.string() }),
  }),
  revokeCredential: endpoint({
    method: 'DELETE',
    path: '/v1/credentials/:id',
    summary: 'Revokes one credential and closes the sessions it opened.',
    output: z.object({ revoked: z.literal(true), credential_id: z.string() }),
  }),
  revokeDevice: endpoint({
    method: 'POST',
    path: '/v1/devices/:id/revoke',
    summary: 'Revokes a device and closes its sessions.',
    output: z.object({ revoked: z.literal(true), device_id: z.string() }),
  }),
  /** A transport route (docs/architecture.md "Transport routes"): the agent's credential, not an owner, authenticates it, as `Authorization: Bearer`. */
  passport: endpoint({
    method: 'POST',
    path: '/v1/auth/passport',
    summary: 'Mints a short-lived passport from the agent credential the request carries.',
    auth: 'public',
    body: passportBody,
    output: z.object({ passport: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int() }),
  }),
};
