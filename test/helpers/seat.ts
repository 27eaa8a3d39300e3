import type { TestAgent } from './server.js';

/** What `agentInRoom` needs of a test server or in-process app (both have it). */
export interface Seats<C> {
  agent(name: string, opts?: { scopes?: string[]; token?: string }): Promise<TestAgent>;
  room(name: string, token?: string): Promise<string>;
  join(roomId: string, plate: string, token?: string): Promise<void>;
  connect(bearer: string): Promise<C>;
}

/**
 * Where most tool tests start: a new agent of the primary owner, in a new room, connected with
 * its credential. Returns the agent, the room's id and the client.
 */
export async function agentInRoom<C>(s: Seats<C>, agentName: string, roomName: string): Promise<{ agent: TestAgent; room: string; c: C }> {
  const agent = await s.agent(agentName);
  const room = await s.room(roomName);
  await s.join(room, agent.plate);
  return { agent, room, c: await s.connect(agent.credential) };
}
