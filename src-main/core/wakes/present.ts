import type { Db } from '../db/open.js';
import { getAgentByPlate } from '../agents/store.js';
import { handleOfPlate } from '../agents/handles.js';
import { wakeDto, withoutRunOutput, type WakeDto, type WakeRow } from './store.js';
import { withWakeActions } from './rules.js';

/**
 * The one presenter of a wake, by viewer (docs/wakes.md "Who sees what of a wake"). Every place
 * that hands a wake to a human goes through it: the wake logs of a room and of an agent, the
 * answers of release, drop, stop and retry, Needs you. A run's output is its agent's owner's to
 * read: for anyone else (another owner in a shared room, a room admin) the output tails and the
 * model line the host printed (`usage.model`, raw runner text) are null and the one-line cause
 * quotes neither; the outcome, the reason and the token counts stay. Each wake names its agent by `handle` beside the plate (the
 * plate itself when no agent holds it any more), so nobody reads "@agent".
 */

/** What a viewer sees of a wake: its record with the handle, and owner-only fields nulled for others. */
export function presentWake(db: Db, viewerOwnerId: string, w: WakeRow | WakeDto): WakeDto & { handle: string } {
  const dto = 'wake_id' in w ? { ...w } : wakeDto(w);
  const owner = getAgentByPlate(db, dto.plate)?.owner_id;
  if (owner !== viewerOwnerId) {
    // The tails go, and the one-line cause is made again without them (store.ts withoutRunOutput).
    withoutRunOutput(dto);
    if (dto.usage) dto.usage = { ...dto.usage, model: null };
  }
  return { ...dto, handle: handleOfPlate(db, dto.plate) ?? dto.plate };
}

/** presentWake over a page, with what the viewer may do with each (allowed_actions). */
export function wakesFor(db: Db, viewerOwnerId: string, ws: ReadonlyArray<WakeRow | WakeDto>) {
  return withWakeActions(
    db,
    viewerOwnerId,
    ws.map((w) => presentWake(db, viewerOwnerId, w)),
  );
}

/** One wake for one viewer, with its actions: the answer of an act on a wake. */
export function wakeFor(db: Db, viewerOwnerId: string, w: WakeRow | WakeDto) {
  return wakesFor(db, viewerOwnerId, [w])[0]!;
}
