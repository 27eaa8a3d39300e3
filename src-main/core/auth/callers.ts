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

/** The authenticated human behind one /v1 request: an owner, as the human API shows it (owners/store.ts makes it). */
export interface Owner {
  owner_id: string;
  name: string;
  handle: string;
  plate_prefix: string;
  is_primary: boolean;
  /** May configure runners (commands run as this machine's user): the primary owner always, others when it allowed them. */
  allow_runners: boolean;
  created_at: string;
}
