import { z } from 'zod';
import type { LegacyRoute } from '../http/router.js';
import { Status } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { AppError } from '../errors/app-error.js';
import {
  agentDto,
  createAgent,
  createCredential,
  credentialOwner,
  deviceOwner,
  getAgentByPlate,
  listAgentsOfOwner,
  listCredentials,
  revokeAgent,
  revokeCredential,
  revokeDevice,
  type AgentRow,
} from './store.js';
import { ALL_SCOPES_MASK, SCOPE_NAMES, scopesToMask, type ScopeName } from '../../../shared/scopes.js';
import type { Core } from '../context.js';
import { mintPassportForCredential, allMcpUrls } from './authenticate.js';
import type { Owner } from '../owners/store.js';

/** The caller's own agent by plate; others' agents are not found. */
export function ownAgent(core: Core, owner: Owner, plate: string): AgentRow {
  const a = getAgentByPlate(core.db, plate);
  if (!a || a.owner_id !== owner.owner_id) throw new AppError('NOT_FOUND', 'agent not found among your agents');
  return a;
}

export function mcpUrlsOf(core: Core) {
  const [generic, ...hosts] = allMcpUrls(core);
  return { generic: generic!, 'claude-code': hosts[0]!, codex: hosts[1]!, gemini: hosts[2]!, cursor: hosts[3]! };
}

function bearerOf(h: string | undefined): string | undefined {
  const m = h ? /^Bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}

export const agentRoutes: LegacyRoute[] = [
  {
    method: 'POST',
    path: '/v1/agents',
    handler: ({ core, owner, body }) => {
      const input = parseWith(
        z.object({ name: z.string().min(1).max(80), scopes: z.array(z.enum(SCOPE_NAMES as [ScopeName, ...ScopeName[]])).optional() }),
        body,
      );
      const mask = input.scopes ? scopesToMask(input.scopes) : ALL_SCOPES_MASK;
      const a = createAgent(core.db, owner.owner_id, input.name, mask);
      core.bus.emit({ type: 'agents.changed', owners: [owner.owner_id] });
      const dto = agentDto(a);
      return new Status(201, { agent_id: dto.agent_id, plate: dto.plate, name: dto.name, handle: dto.handle, owner: dto.owner, scopes: dto.scopes });
    },
  },
  {
    method: 'GET',
    path: '/v1/agents',
    handler: ({ core, owner }) => ({ agents: listAgentsOfOwner(core.db, owner.owner_id).map(agentDto) }),
  },
  {
    method: 'GET',
    path: '/v1/agents/:plate',
    handler: ({ core, owner, params }) => agentDto(ownAgent(core, owner, params.plate!)),
  },
  {
    method: 'POST',
    path: '/v1/agents/:plate/credentials',
    handler: ({ core, owner, params, body }) => {
      const a = ownAgent(core, owner, params.plate!);
      if (a.revoked_at !== null) throw new AppError('CONFLICT', 'this agent is revoked');
      const input = parseWith(z.object({ device: z.string().min(1).max(80).optional() }), body);
      const c = createCredential(core.db, a.id, input.device);
      core.bus.emit({ type: 'agents.changed', owners: [owner.owner_id] });
      return new Status(201, { credential_id: c.credentialId, credential: c.credential, device_id: c.deviceId, mcp_urls: mcpUrlsOf(core) });
    },
  },
  {
    method: 'GET',
    path: '/v1/agents/:plate/credentials',
    handler: ({ core, owner, params }) => ({ credentials: listCredentials(core.db, ownAgent(core, owner, params.plate!).id) }),
  },
  {
    method: 'POST',
    path: '/v1/agents/:plate/revoke',
    handler: async ({ core, owner, params }) => {
      const a = ownAgent(core, owner, params.plate!);
      revokeAgent(core.db, a.plate);
      await core.sessions.closeWhere((s) => s.plate === a.plate);
      core.bus.emit({ type: 'agents.changed', owners: [owner.owner_id] });
      return { revoked: true, plate: a.plate };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/credentials/:id',
    handler: async ({ core, owner, params }) => {
      const c = credentialOwner(core.db, params.id!);
      if (!c || c.owner_id !== owner.owner_id) throw new AppError('NOT_FOUND', 'credential not found');
      revokeCredential(core.db, params.id!);
      await core.sessions.closeWhere((s) => s.credentialId === params.id);
      core.bus.emit({ type: 'agents.changed', owners: [owner.owner_id] });
      return { revoked: true, credential_id: params.id };
    },
  },
  {
    method: 'POST',
    path: '/v1/devices/:id/revoke',
    handler: async ({ core, owner, params }) => {
      const d = deviceOwner(core.db, params.id!);
      if (!d || d.owner_id !== owner.owner_id) throw new AppError('NOT_FOUND', 'device not found');
      revokeDevice(core.db, params.id!);
      await core.sessions.closeWhere((s) => s.deviceId === params.id);
      core.bus.emit({ type: 'agents.changed', owners: [owner.owner_id] });
      return { revoked: true, device_id: params.id };
    },
  },
  {
    method: 'POST',
    path: '/v1/auth/passport',
    public: true,
    handler: async ({ core, req, body }) => {
      const secret = bearerOf(req.headers.authorization);
      if (!secret) throw new AppError('UNAUTHENTICATED', 'present the agent credential as Authorization: Bearer');
      const input = parseWith(z.object({ resource: z.string().max(300).optional() }), body);
      const { passport, expiresAt } = await mintPassportForCredential(core, secret, input.resource);
      return { passport, token_type: 'Bearer', expires_in: expiresAt - Math.floor(Date.now() / 1000) };
    },
  },
];
