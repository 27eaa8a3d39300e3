import type { Instance } from '../../../shared/api-types.js';

/** Connected and heard from within this long: live; connected but quiet for longer: idle. */
const LIVE_MS = 2 * 60_000;

export type Presence = 'live' | 'idle' | 'offline';

export function presenceOf(instances: Instance[], now = Date.now()): Presence {
  if (!instances.length) return 'offline';
  return instances.some((i) => now - Date.parse(i.last_seen) < LIVE_MS) ? 'live' : 'idle';
}
