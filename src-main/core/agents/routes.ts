import { defineRoute, Status, type Route } from '../http/router.js';
import { AppError } from '../errors/app-error.js';
import { agentDto, listAgentsOfOwner, listCredentials } from './store.js';
import { agentPresence, mcpUrl, type Core } from '../core.js';
import { mintPassportForCredential } from './authenticate.js';
import { MCP_HOSTS, type McpHost } from '../../../shared/hosts.js';
import { createAgentBody, createCredentialBody, passportBody } from './schemas.js';
import { addAgent, addCredential, ownAgent, revokeOwnAgent, revokeOwnCredential, revokeOwnDevice } from './service.js';

/** The server's MCP resources by name: the generic one and each host-bound one the specification names (shared/hosts.ts). */
export function mcpUrlsOf(core: Core): { generic: string } & Record<McpHost, string> {
  return { generic: mcpUrl(core), ...(Object.fromEntries(MCP_HOSTS.map((h) => [h, mcpUrl(core, h)])) as Record<McpHost, string>) };
}

function bearerOf(h: string | undefined): string | undefined {
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

export const agentRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/agents',
    body: createAgentBody,
    handler: ({ core, owner }, { body }) => {
      const a = addAgent(core, { ownerId: owner.owner_id, name: body.name, scopes: body.scopes });
      const dto = agentDto(a);
      return new Status(201, { agent_id: dto.agent_id, plate: dto.plate, name: dto.name, handle: dto.handle, owner: dto.owner, scopes: dto.scopes });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents',
    handler: ({ core, owner }) => ({ agents: listAgentsOfOwner(core.db, owner.owner_id).map((a) => ({ ...agentDto(a), presence: agentPresence(core, a.plate) })) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate',
    handler: ({ core, owner, params }) => {
      const a = ownAgent(core, owner, params.plate);
      return { ...agentDto(a), presence: agentPresence(core, a.plate) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:plate/credentials',
    body: createCredentialBody,
    handler: ({ core, owner, params }, { body }) => {
      const c = addCredential(core, { owner, plate: params.plate, device: body.device });
      return new Status(201, { credential_id: c.credentialId, credential: c.credential, device_id: c.deviceId, mcp_urls: mcpUrlsOf(core) });
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/agents/:plate/credentials',
    handler: ({ core, owner, params }) => ({ credentials: listCredentials(core.db, ownAgent(core, owner, params.plate).id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/:plate/revoke',
    handler: async ({ core, owner, params }) => {
      const a = await revokeOwnAgent(core, { owner, plate: params.plate });
      return { revoked: true, plate: a.plate };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/credentials/:id',
    handler: async ({ core, owner, params }) => {
      await revokeOwnCredential(core, { ownerId: owner.owner_id, credentialId: params.id });
      return { revoked: true, credential_id: params.id };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/devices/:id/revoke',
    handler: async ({ core, owner, params }) => {
      await revokeOwnDevice(core, { ownerId: owner.owner_id, deviceId: params.id });
      return { revoked: true, device_id: params.id };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/auth/passport',
    // The agent's own credential authenticates this route, not an owner.
    auth: 'public',
    body: passportBody,
    handler: async ({ core, req }, { body }) => {
      const secret = bearerOf(req.headers.authorization);
      if (!secret) throw new AppError('UNAUTHENTICATED', 'present the agent credential as Authorization: Bearer');
      const { passport, expiresAt } = await mintPassportForCredential(core, secret, body.resource);
      return { passport, token_type: 'Bearer', expires_in: expiresAt - Math.floor(Date.now() / 1000) };
    },
  }),
];
