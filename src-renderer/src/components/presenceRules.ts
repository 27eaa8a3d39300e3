import type { Instance } from '../../../shared/api-types.js';

/** Connected and heard from within this long: live; connected but quiet for longer: idle. */
const LIVE_MS = 2 * 60_000;

export type Presence = 'live' | 'idle' | 'asleep' | 'offline';

/**
 * What the presence dot says: live or idle from the connected instances; with none, `asleep`
 * when the server says a mention wakes the agent (a runner), else `offline` (docs/wakes.md "Liveness").
 */
export function presenceOf(instances: Instance[], now = Date.now(), server?: string): Presence {
  if (!instances.length) return server === 'asleep' ? 'asleep' : 'offline';
  return instances.some((i) => now - Date.parse(i.last_seen) < LIVE_MS) ? 'live' : 'idle';
}

/** The words beside the dot, and its longer explanation. */
export const PRESENCE_WORDS: Record<Presence, { label: string; title: string }> = {
  live: { label: 'live', title: 'Connected and active in the last two minutes' },
  idle: { label: 'idle', title: 'Connected, quiet for over two minutes' },
  asleep: { label: 'asleep — a mention wakes it', title: 'Not connected now; a mention or a task wakes it (it has a runner)' },
  offline: { label: 'offline', title: 'Not connected, and nothing can wake it: connect it, or give it a runner' },
};
