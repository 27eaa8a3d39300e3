// The services own their writes and the live events after them (docs/architecture.md "One folder
// per capability"): the owners' and agents' use cases, on the in-memory core (no HTTP).
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { openMemoryCore, type MemoryCore } from '../helpers/memory-core.js';
import { createOwner } from '../../src-main/core/owners/store.js';
import { addOwner, setOwnerRunnerRight } from '../../src-main/core/owners/service.js';
import { addAgent, addCredential, revokeOwnCredential } from '../../src-main/core/agents/service.js';
import { listCredentials } from '../../src-main/core/agents/store.js';
import { AppError } from '../../src-main/core/errors/app-error.js';

describe('owner and agent services', () => {
  let m: MemoryCore;
  beforeEach(() => {
    m = openMemoryCore();
  });
  afterEach(() => m.close());

  it('a new agent and its credential each tell the owner, and only the owner', async () => {
    const { owner } = createOwner(m.core.db, { name: 'Ada', isPrimary: true });
    const { owner: other } = createOwner(m.core.db, { name: 'Bob' });
    const a = addAgent(m.core, { ownerId: owner.owner_id, name: 'Scout', scopes: ['READ'] });
    const c = addCredential(m.core, { owner, plate: a.plate, device: 'laptop' });
    expect(m.events).toEqual([
      { type: 'agents.changed', owners: [owner.owner_id] },
      { type: 'agents.changed', owners: [owner.owner_id] },
    ]);
    // Another owner's agent is not found, and nothing is written or told.
    expect(() => addCredential(m.core, { owner: other, plate: a.plate })).toThrow(AppError);
    await expect(revokeOwnCredential(m.core, { ownerId: other.owner_id, credentialId: c.credentialId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(listCredentials(m.core.db, a.id)).toMatchObject([{ revoked: false }]);
    expect(m.events).toHaveLength(2);
  });

  it('a runner right taken back reaches the wakes through the port, then the two owners it concerns', () => {
    const { owner: primary } = createOwner(m.core.db, { name: 'Ada', isPrimary: true });
    const { owner } = addOwner(m.core, { name: 'Bob' });
    expect(m.events).toEqual([{ type: 'owners.changed' }]);
    const told: string[] = [];
    m.core.ports = { ...m.core.ports, runnerRightChanged: (_core, ownerId) => void told.push(ownerId) };
    const updated = setOwnerRunnerRight(m.core, { ownerId: owner.owner_id, byOwnerId: primary.owner_id, allowRunners: true });
    expect(updated.allow_runners).toBe(true);
    expect(told).toEqual([owner.owner_id]);
    expect(m.events.slice(1)).toEqual([
      { type: 'owners.changed', owners: [owner.owner_id, primary.owner_id], data: { owner_id: owner.owner_id, allow_runners: true } },
      { type: 'runners.changed', owners: [owner.owner_id] },
    ]);
    // The primary owner's own right cannot change: refused before anything is told.
    expect(() => setOwnerRunnerRight(m.core, { ownerId: primary.owner_id, byOwnerId: primary.owner_id, allowRunners: false })).toThrow(/primary owner/);
    expect(told).toHaveLength(1);
    expect(m.events).toHaveLength(3);
  });
});
