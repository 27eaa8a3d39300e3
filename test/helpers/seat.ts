import type { TestAgent } from './server.js';
import { openTestApp, type AppClient, type AppOptions, type TestApp } from './app.js';
import { forFile } from './for-file.js';

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

/**
 * The in-process app of a describe's (or a file's) tests: opened with `opts` in beforeAll (a
 * function of them is called there, for options made then, such as a home), stopped in afterAll
 * (forFile). Read it from a test or a later hook on.
 */
export function appFor(opts: AppOptions | (() => AppOptions) = {}): TestApp {
  const opened = forFile(async () => {
    const app = await openTestApp(typeof opts === 'function' ? opts() : opts);
    return { app, close: () => app.stop() };
  });
  return new Proxy({} as TestApp, { get: (_target, key) => Reflect.get(opened.app, key) as unknown });
}

/** Where the app's tools are tried: one agent seated in a new room (agentInRoom), seated in beforeAll. */
export interface Seat {
  agent: TestAgent;
  room: string;
  c: AppClient;
}

/** Seats an agent of the primary owner in a new room of `s` for the describe's tests: `seat.agent`, `seat.room`, `seat.c`. */
export function seatFor(s: TestApp, agentName: string, roomName: string): Seat {
  // The app closes its clients when it stops: nothing of the seat's own to close.
  return forFile(async () => ({ ...(await agentInRoom(s, agentName, roomName)), close: async () => {} }));
}
