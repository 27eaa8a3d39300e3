import { z } from 'zod';
import { SCOPE_NAMES, type ScopeName } from '../../../shared/scopes.js';

/** An agent's owner as tool results show it beside the agent (members, handle candidates). */
export { agentOwnerRef } from '../../../shared/schemas/rooms.js';

/** POST /v1/agents: a new agent of the calling owner; every scope unless `scopes` narrows it. */
export const createAgentBody = z.object({ name: z.string().min(1).max(80), scopes: z.array(z.enum(SCOPE_NAMES as [ScopeName, ...ScopeName[]])).optional() });

/** POST /v1/agents/:plate/credentials: the device the credential is for, optional. */
export const createCredentialBody = z.object({ device: z.string().min(1).max(80).optional() });

/** POST /v1/auth/passport: the MCP resource the passport is for, optional. */
export const passportBody = z.object({ resource: z.string().max(300).optional() });
