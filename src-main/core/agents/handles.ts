import type { Db } from '../db/open.js';
import { agentHandle, getAgentByPlate } from './store.js';

/**
 * The handle (`@name(owner)`) of the agent holding `plate`, for every record that names an agent
 * beside its plate (docs/tasks.md "History", docs/wakes.md); undefined when no agent holds the plate any more,
 * so the window shows the plate itself. Cached by getAgentByPlate, so a page of records costs one
 * read per distinct agent at most.
 */
export function handleOfPlate(db: Db, plate: string): string | undefined {
  const a = getAgentByPlate(db, plate);
  return a ? agentHandle(a) : undefined;
}

/** handleOfPlate over a page: one lookup per distinct plate. */
export function handlesOf(db: Db, plates: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of plates) {
    if (out.has(p)) continue;
    const h = handleOfPlate(db, p);
    if (h !== undefined) out.set(p, h);
  }
  return out;
}
