import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import type { Owner } from '../owners/store.js';
import { ALL_SCOPES_MASK, scopesToMask, type ScopeName } from '../../../shared/scopes.js';
import {
  createAgent,
  createCredential,
  credentialOwner,
  deviceOwner,
  getAgentByPlate,
  revokeAgent,
  revokeCredential,
  revokeDevice,
  type AgentRow,
} from './store.js';

/**
 * The agents' use cases for their owner (docs/architecture.md "One folder per capability"):
 * each writes, then tells the owner's windows (`agents.changed`) after the write, so the
 * routes only parse, call and shape.
 */

/** The caller's own agent by plate; others' agents are not found. */
export function ownAgent(core: Core, owner: Owner, plate: string): AgentRow {
  const a = getAgentByPlate(core.db, plate);
  if (!a || a.owner_id !== owner.owner_id) throw new AppError('NOT_FOUND', 'agent not found among your agents');
  return a;
}

function agentsChanged(core: Core, ownerId: string): void {
  core.bus.emit({ type: 'agents.changed', owners: [ownerId] });
}

export function addAgent(core: Core, input: { ownerId: string; name: string; scopes?: readonly ScopeName[] }): AgentRow {
  const mask = input.scopes ? scopesToMask(input.scopes) : ALL_SCOPES_MASK;
  const a = createAgent(core.db, input.ownerId, input.name, mask);
  agentsChanged(core, input.ownerId);
  return a;
}

/** A new credential (and device) for one of the owner's agents, not a revoked one. */
export function addCredential(core: Core, input: { owner: Owner; plate: string; device?: string }) {
  const a = ownAgent(core, input.owner, input.plate);
  if (a.revoked_at !== null) throw new AppError('CONFLICT', 'this agent is revoked');
  const c = createCredential(core.db, a.id, input.device);
  agentsChanged(core, input.owner.owner_id);
  return c;
}

/** Revokes one of the owner's agents and closes its live sessions. */
export async function revokeOwnAgent(core: Core, input: { owner: Owner; plate: string }): Promise<AgentRow> {
  const a = ownAgent(core, input.owner, input.plate);
  revokeAgent(core.db, a.plate);
  await core.sessions.closeWhere((s) => s.plate === a.plate);
  agentsChanged(core, input.owner.owner_id);
  return a;
}

/** Revokes a credential of one of the owner's agents and closes the sessions it opened. */
export async function revokeOwnCredential(core: Core, input: { ownerId: string; credentialId: string }): Promise<void> {
  const c = credentialOwner(core.db, input.credentialId);
  if (!c || c.owner_id !== input.ownerId) throw new AppError('NOT_FOUND', 'credential not found');
  revokeCredential(core.db, input.credentialId);
  await core.sessions.closeWhere((s) => s.credentialId === input.credentialId);
  agentsChanged(core, input.ownerId);
}

/** Revokes a device of one of the owner's agents and closes its sessions. */
export async function revokeOwnDevice(core: Core, input: { ownerId: string; deviceId: string }): Promise<void> {
  const d = deviceOwner(core.db, input.deviceId);
  if (!d || d.owner_id !== input.ownerId) throw new AppError('NOT_FOUND', 'device not found');
  revokeDevice(core.db, input.deviceId);
  await core.sessions.closeWhere((s) => s.deviceId === input.deviceId);
  agentsChanged(core, input.ownerId);
}
