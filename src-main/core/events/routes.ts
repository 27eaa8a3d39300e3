import { defineRoute, type Route } from '../http/router.js';
import { holdStream } from '../http/streams.js';
import { humanRole } from '../rooms/store.js';
import type { CoreEvent, WireEvent } from '../../../shared/core-events.js';

/** What the stream sends of an event (shared/core-events.ts `WireEvent`): its audience stays on the server. */
function toWire(e: CoreEvent): WireEvent {
  return { type: e.type, room: e.room, data: e.data ?? null } as WireEvent;
}

/** Server-Sent Events for the UI: every core event the signed-in owner may see. */
export const eventRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/events',
    handler: ({ core, owner, req, res }) => {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(`retry: 2000\n\n`);
      holdStream(core, res);
      const off = core.bus.on((e) => {
        if (e.room) {
          if (!humanRole(core.db, e.room, owner.owner_id)) return;
        } else if (e.owners && !e.owners.includes(owner.owner_id)) {
          return;
        }
        res.write(`event: ${e.type}\ndata: ${JSON.stringify(toWire(e))}\n\n`);
      });
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      ping.unref();
      const stop = () => {
        clearInterval(ping);
        off();
      };
      req.on('close', stop);
      res.on('close', stop);
      return undefined;
    },
  }),
];
