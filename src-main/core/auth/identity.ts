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
