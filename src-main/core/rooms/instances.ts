import type { Core } from '../core.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { isAgentMember } from './store.js';

/** Live instances (MCP sessions) of the room's agents, optionally of one plate. */
export function instancesOf(core: Core, roomId: string, plate?: string) {
  return core.sessions
    .all()
    .filter((s) => (plate ? s.plate === plate : true) && isAgentMember(core.db, roomId, s.plate))
    .map((s) => {
      const a = getAgentByPlate(core.db, s.plate)!;
      const workingOn = core.ports.workingOn(core.db, s.id).filter((t) => t.room === roomId);
      return {
        instance_id: s.id,
        handle: `${agentHandle(a)}#${s.label}`,
        plate: s.plate,
        host: s.host,
        connected_at: new Date(s.createdAt).toISOString(),
        last_seen: new Date(s.lastSeen).toISOString(),
        streaming: s.getStreams > 0,
        working_on: workingOn.map(({ task_id, title }) => ({ task_id, title })),
      };
    });
}
