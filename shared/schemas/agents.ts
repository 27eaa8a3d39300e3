import { z } from 'zod';
import { SCOPE_NAMES, type ScopeName } from '../scopes.js';
import { presence } from './rooms.js';

/**
 * The agent records of the human API (/v1/agents and its credentials), declared once here;
 * shared/api-types.ts derives the UI's types from them (`z.output`, types only).
 */

export const agentRecord = z.object({
  agent_id: z.string(),
  plate: z.string(),
  name: z.string(),
  handle: z.string(),
  owner: z.object({ owner_id: z.string(), name: z.string() }),
  scopes: z.array(z.enum(SCOPE_NAMES as [ScopeName, ...ScopeName[]])),
  revoked: z.boolean(),
  created_at: z.string(),
  /** On GET /v1/agents and GET /v1/agents/:plate. */
  presence: presence.optional(),
});

export const credentialRecord = z.object({
  credential_id: z.string(),
  device_id: z.string(),
  device: z.string(),
  purpose: z.string(),
  revoked: z.boolean(),
  created_at: z.string(),
});

/** The MCP URL of each host, for a connection's configuration. */
export const mcpUrls = z.object({
  generic: z.string(),
  'claude-code': z.string(),
  codex: z.string(),
  gemini: z.string(),
  cursor: z.string(),
});

/** POST /v1/agents/:plate/credentials: the credential, shown this once. */
export const mintedCredential = z.object({
  credential_id: z.string(),
  credential: z.string(),
  device_id: z.string(),
  mcp_urls: mcpUrls,
});
