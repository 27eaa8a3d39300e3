import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { Core } from '../core.js';

/**
 * Responses that never end by themselves (the UI's `/v1/events`, MCP GET streams), by core. When the
 * server stops, their connections are closed at once; other requests in flight get their grace
 * (start.ts `close`, docs/desktop.md "Quit"). Without this a stop waited the whole grace
 * whenever a window or an agent had a stream open.
 */
declare module '../core.js' {
  interface CoreServices {
    /** The sockets of this core's open streams. */
    openStreams: Set<Socket>;
  }
}

export function holdStream(core: Core, res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  const set = core.services.openStreams;
  set.add(socket);
  res.once('close', () => set.delete(socket));
}

/** Closes the connections of every stream of this core (the server is stopping). */
export function endStreams(core: Core): void {
  const set = core.services.openStreams;
  for (const socket of set) socket.destroy();
  set.clear();
}
