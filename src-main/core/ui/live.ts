import type { Core } from '../core.js';
import { roomsOfAgent } from '../rooms/store.js';
import type { StopStep } from '../util/repeat.js';

/**
 * Tells the UI when an agent instance comes or goes (an MCP session opens or closes), so a
 * room's "who is live" list follows without a refresh.
 */
export function startInstanceEvents(core: Core): StopStep {
  return core.sessions.onChange((s) => {
    for (const r of roomsOfAgent(core.db, s.plate)) core.bus.emit({ type: 'instances.changed', room: r.id, data: { plate: s.plate } });
  });
}
