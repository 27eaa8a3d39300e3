import type { z } from 'zod';
import type { meRecord } from '../../../shared/schemas/owners.js';

/** The authenticated agent behind one MCP request. */
export interface AgentIdentity {
  plate: string;
  agentId: string;
  ownerId: string;
  scopes: number;
  credentialId: string;
  deviceId: string;
  /** Passport expiry (unix seconds). */
  exp: number;
}

/**
 * The authenticated human behind one /v1 request: an owner, as the human API shows it
 * (shared/schemas/owners.ts `meRecord`; owners/store.ts makes it). `allow_runners`: may configure
 * runners (commands run as this machine's user), the primary owner always, others when it allowed them.
 */
export type Owner = z.output<typeof meRecord> & {
  /**
   * When the request came with a window session (`ars_…`), that session's token hash, set by
   * owners/authenticate.ts: sign-out ends it, an events ticket is tied to it. Never shown:
   * GET /v1/me answers the record without it.
   */
  ui_session_hash?: string;
};
