import type { Core } from '../core.js';
import { createOwner, setAllowRunners, type Owner } from './store.js';

/**
 * The primary owner's use cases on the humans of this server: each writes, then tells the
 * windows it concerns (docs/architecture.md "One folder per capability").
 */

/** Grants or takes back an owner's right to configure runners; `byOwnerId` is the primary owner who set it. */
export function setOwnerRunnerRight(core: Core, input: { ownerId: string; byOwnerId: string; allowRunners: boolean }): Owner {
  const updated = setAllowRunners(core.db, input.ownerId, input.allowRunners);
  // A revoked right ends that owner's running runs at once (the wakes capability answers).
  core.ports.runnerRightChanged(core, updated.owner_id);
  // An owner's right is news only for that owner and the primary owner who set it (issue 26 F8).
  core.bus.emit({
    type: 'owners.changed',
    owners: [...new Set([updated.owner_id, input.byOwnerId])],
    data: { owner_id: updated.owner_id, allow_runners: updated.allow_runners },
  });
  core.bus.emit({ type: 'runners.changed', owners: [updated.owner_id] });
  return updated;
}

/** A new (secondary) owner and its token, shown once. */
export function addOwner(core: Core, input: { name: string; platePrefix?: string }): { owner: Owner; token: string } {
  const created = createOwner(core.db, { name: input.name, platePrefix: input.platePrefix });
  core.bus.emit({ type: 'owners.changed' });
  return created;
}
