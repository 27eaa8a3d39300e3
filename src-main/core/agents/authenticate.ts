import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import { looksLikeJwt, type PassportClaims } from '../auth/passports.js';
import { credentialBySecret, getAgentById, isRevoked } from './store.js';
import { sha256Hex } from '../util/ids.js';
import type { AgentIdentity } from '../auth/callers.js';
import { MCP_HOSTS } from '../../../shared/hosts.js';

declare module '../core.js' {
  interface CoreServices {
    /** Identities of the passports minted for credentials presented as Bearer tokens, by the credential's hash. */
    mintedIdentities: Map<string, AgentIdentity>;
  }
}

export function allMcpUrls(core: Core): string[] {
  return [`${core.baseUrl}/mcp`, ...MCP_HOSTS.map((h) => `${core.baseUrl}/mcp/${h}`)];
}

/** Mints a passport for a credential secret (POST /v1/auth/passport). */
export async function mintPassportForCredential(
  core: Core,
  secret: string,
  resource?: string,
): Promise<{ passport: string; expiresAt: number; identity: AgentIdentity }> {
  const cred = secret.startsWith('ark_') ? credentialBySecret(core.db, secret) : undefined;
  if (!cred) throw new AppError('UNAUTHENTICATED', 'unknown credential', { reason: 'invalid_credential' });
  const agent = getAgentById(core.db, cred.agent_id);
  if (!agent || isRevoked(core.db, cred.agent_id, cred.id, cred.device_id)) {
    throw new AppError('UNAUTHENTICATED', 'credential revoked', { reason: 'revoked' });
  }
  const urls = allMcpUrls(core);
  if (resource !== undefined && !urls.includes(resource)) {
    throw new AppError('INVALID_ARGUMENT', `resource must be one of this server's MCP URLs`);
  }
  const { passport, expiresAt } = await core.passports.mint({
    plate: agent.plate,
    agentId: agent.id,
    ownerId: agent.owner_id,
    scopes: agent.scopes,
    credentialId: cred.id,
    deviceId: cred.device_id,
    audience: resource ?? urls,
  });
  return {
    passport,
    expiresAt,
    identity: {
      plate: agent.plate,
      agentId: agent.id,
      ownerId: agent.owner_id,
      scopes: agent.scopes,
      credentialId: cred.id,
      deviceId: cred.device_id,
      exp: expiresAt,
    },
  };
}

function identityOf(c: PassportClaims): AgentIdentity {
  return { plate: c.sub, agentId: c.aid, ownerId: c.own, scopes: c.scopes, credentialId: c.cid, deviceId: c.did, exp: c.exp };
}

/**
 * Authenticates an agent on an MCP resource: a passport (EdDSA only, iss/aud/exp checked),
 * or a credential for which the server mints and keeps a passport. Revocation of agent,
 * credential and device is checked on every call.
 */
export async function authenticateAgent(core: Core, token: string | undefined, audience: string): Promise<AgentIdentity> {
  if (!token) throw new AppError('UNAUTHENTICATED', 'missing credentials: present a passport or credential as a Bearer token', { reason: 'missing_token' });
  let id: AgentIdentity;
  if (looksLikeJwt(token)) {
    id = identityOf(await core.passports.verify(token, audience));
  } else if (token.startsWith('ark_')) {
    const cache = core.services.mintedIdentities;
    const key = sha256Hex(token);
    const hit = cache.get(key);
    if (hit && hit.exp - 30 > Date.now() / 1000) {
      id = hit;
    } else {
      id = (await mintPassportForCredential(core, token)).identity;
      if (cache.size > 10_000) cache.clear();
      cache.set(key, id);
    }
  } else {
    throw new AppError('UNAUTHENTICATED', 'invalid token', { reason: 'invalid_token' });
  }
  if (isRevoked(core.db, id.agentId, id.credentialId, id.deviceId)) {
    throw new AppError('UNAUTHENTICATED', 'agent, credential or device revoked', { reason: 'revoked' });
  }
  return id;
}
