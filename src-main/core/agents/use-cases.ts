import { defineUseCase } from '../usecase/define.js';
import { contracts } from '../../../shared/contracts/index.js';
import { agentDto, listAgentsOfOwner, listCredentials } from './store.js';
import { agentPresence, mcpUrl, type Core } from '../core.js';
import { MCP_HOSTS, type McpHost } from '../../../shared/hosts.js';
import { addAgent, addCredential, ownAgent, revokeOwnAgent, revokeOwnCredential, revokeOwnDevice } from './service.js';

/**
 * What an owner does with its own agents, humans only (no tool): add and list them, mint and
 * list their credentials, revoke an agent, a credential or a device. Another owner's agent,
 * credential or device is not found (service.ts).
 */

/** The server's MCP resources by name: the generic one and each host-bound one the specification names (shared/hosts.ts). */
function mcpUrlsOf(core: Core): { generic: string } & Record<McpHost, string> {
  return { generic: mcpUrl(core), ...(Object.fromEntries(MCP_HOSTS.map((h) => [h, mcpUrl(core, h)])) as Record<McpHost, string>) };
}

export const addAgentUseCase = defineUseCase({
  route: { contract: contracts.agents.create },
  handler: ({ core, caller }, { body }) => {
    const dto = agentDto(addAgent(core, { ownerId: caller.ownerId, name: body.name, scopes: body.scopes }));
    return { agent_id: dto.agent_id, plate: dto.plate, name: dto.name, handle: dto.handle, owner: dto.owner, scopes: dto.scopes };
  },
});

export const listAgentsUseCase = defineUseCase({
  route: { contract: contracts.agents.list },
  handler: ({ core, caller }) => ({ agents: listAgentsOfOwner(core.db, caller.ownerId).map((a) => ({ ...agentDto(a), presence: agentPresence(core, a.plate) })) }),
});

export const readAgentUseCase = defineUseCase({
  route: { contract: contracts.agents.read },
  handler: ({ core, caller }, { params }) => {
    const a = ownAgent(core, caller.owner, params.plate);
    return { ...agentDto(a), presence: agentPresence(core, a.plate) };
  },
});

export const mintCredentialUseCase = defineUseCase({
  route: { contract: contracts.agents.mint },
  handler: ({ core, caller }, { params, body }) => {
    const c = addCredential(core, { owner: caller.owner, plate: params.plate, device: body.device });
    return { credential_id: c.credentialId, credential: c.credential, device_id: c.deviceId, mcp_urls: mcpUrlsOf(core) };
  },
});

export const listCredentialsUseCase = defineUseCase({
  route: { contract: contracts.agents.credentials },
  handler: ({ core, caller }, { params }) => ({ credentials: listCredentials(core.db, ownAgent(core, caller.owner, params.plate).id) }),
});

export const revokeAgentUseCase = defineUseCase({
  route: { contract: contracts.agents.revoke },
  handler: async ({ core, caller }, { params }) => {
    const a = await revokeOwnAgent(core, { owner: caller.owner, plate: params.plate });
    return { revoked: true as const, plate: a.plate };
  },
});

export const revokeCredentialUseCase = defineUseCase({
  route: { contract: contracts.agents.revokeCredential },
  handler: async ({ core, caller }, { params }) => {
    await revokeOwnCredential(core, { ownerId: caller.ownerId, credentialId: params.id });
    return { revoked: true as const, credential_id: params.id };
  },
});

export const revokeDeviceUseCase = defineUseCase({
  route: { contract: contracts.agents.revokeDevice },
  handler: async ({ core, caller }, { params }) => {
    await revokeOwnDevice(core, { ownerId: caller.ownerId, deviceId: params.id });
    return { revoked: true as const, device_id: params.id };
  },
});
