import type { ServerResponse } from 'node:http';
import type { Core } from '../core.js';
import { AppError } from '../errors/app-error.js';
import { defineRoute, type Route } from '../http/router.js';
import { holdStream } from '../http/streams.js';
import { humanRole } from '../rooms/store.js';
import type { CoreEvent, WireEvent } from '../../../shared/core-events.js';

/** What the stream sends of an event (shared/core-events.ts `WireEvent`): its audience stays on the server. */
function toWire(e: CoreEvent): WireEvent {
  return { type: e.type, room: e.room, data: e.data ?? null } as WireEvent;
}

/**
 * The bounds of the UI's event streams (docs/security.md "Third round"): streams were unbounded
 * in number and in what each buffered for a client that does not read, so 20 unread streams and
 * 200 posts of 60 KiB grew the server by 160 MiB, and 2,000 streams cost a second of event loop a
 * message. A window needs one stream a tab.
 */
export interface EventStreamLimits {
  /** Open streams per owner; one more is refused (429 `too_many_streams`). */
  perOwner: number;
  /** Open streams in all. */
  total: number;
  /** What one stream may hold unsent (bytes) before it is closed with a final `stream.closed` event. */
  maxUnsentBytes: number;
}

export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = { perOwner: 32, total: 1000, maxUnsentBytes: 1024 * 1024 };

const PING_MS = 15_000;
/** A stream closed for a slow reader has this long to take its final event before its socket goes. */
const CLOSE_GRACE_MS = 5_000;

interface Stream {
  ownerId: string;
  res: ServerResponse;
}

/**
 * Every event stream of one core, behind one listener of the bus: each event is serialized once,
 * and the room role is looked up once an owner, however many streams there are.
 */
export class EventHub {
  private readonly byOwner = new Map<string, Set<Stream>>();
  private count = 0;
  private off?: () => void;
  private ping?: NodeJS.Timeout;

  constructor(
    private readonly core: Core,
    public limits: EventStreamLimits = DEFAULT_EVENT_STREAM_LIMITS,
  ) {}

  /** Registers a stream, or refuses it beyond the bounds (before anything is written). */
  admit(ownerId: string): void {
    const mine = this.byOwner.get(ownerId)?.size ?? 0;
    if (mine >= this.limits.perOwner || this.count >= this.limits.total) {
      const perOwner = mine >= this.limits.perOwner;
      throw new AppError(
        'RATE_LIMITED',
        perOwner
          ? `an owner may hold ${this.limits.perOwner} event streams at once: close one (a window needs one a tab)`
          : `the server holds ${this.limits.total} event streams already: retry later`,
        { httpStatus: 429, reason: 'too_many_streams', retryAfterMs: 2000, details: { limit: perOwner ? this.limits.perOwner : this.limits.total, per: perOwner ? 'owner' : 'server' } },
      );
    }
  }

  add(s: Stream): () => void {
    let set = this.byOwner.get(s.ownerId);
    if (!set) this.byOwner.set(s.ownerId, (set = new Set()));
    set.add(s);
    this.count++;
    if (!this.off) {
      this.off = this.core.bus.on((e) => this.deliver(e));
      this.ping = setInterval(() => this.broadcast(': ping\n\n'), PING_MS);
      this.ping.unref();
    }
    return () => this.remove(s);
  }

  private remove(s: Stream): void {
    const set = this.byOwner.get(s.ownerId);
    if (!set?.delete(s)) return;
    this.count--;
    if (set.size === 0) this.byOwner.delete(s.ownerId);
    if (this.count === 0) {
      this.off?.();
      this.off = undefined;
      clearInterval(this.ping);
    }
  }

  private deliver(e: CoreEvent): void {
    let wire: string | undefined;
    for (const [ownerId, set] of [...this.byOwner]) {
      if (e.room) {
        if (!humanRole(this.core.db, e.room, ownerId)) continue;
      } else if (e.owners && !e.owners.includes(ownerId)) {
        continue;
      }
      wire ??= `event: ${e.type}\ndata: ${JSON.stringify(toWire(e))}\n\n`;
      for (const s of [...set]) this.write(s, wire);
    }
  }

  private broadcast(chunk: string): void {
    for (const set of [...this.byOwner.values()]) for (const s of [...set]) this.write(s, chunk);
  }

  /** Writes unless the stream's unsent bytes would pass the bound: then it is closed, saying why. */
  private write(s: Stream, chunk: string): void {
    const { res } = s;
    if (res.writableEnded || res.destroyed) return this.remove(s);
    if (res.writableLength + chunk.length <= this.limits.maxUnsentBytes) {
      res.write(chunk);
      return;
    }
    this.remove(s);
    const why = { reason: 'too_slow', detail: `the stream held more than ${this.limits.maxUnsentBytes} bytes its reader had not taken; reconnect and reload` };
    const socket = res.socket;
    res.end(`event: stream.closed\ndata: ${JSON.stringify(why)}\n\n`);
    if (!socket) return;
    // The connection ends once what it holds is sent (a keep-alive socket would stay open); a reader
    // that never reads never takes the final event either: its socket, and the buffer, go.
    socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Streams open now, in all and of one owner (tests and the health figures). */
  open(ownerId?: string): number {
    return ownerId === undefined ? this.count : (this.byOwner.get(ownerId)?.size ?? 0);
  }
}

declare module '../core.js' {
  interface CoreServices {
    /** The open `/v1/events` streams of this core and their bounds. */
    eventHub: EventHub;
  }
}

/** Other bounds for one core's streams (a test's small caps); before its first stream opens. */
export function setEventStreamLimits(core: Core, limits: Partial<EventStreamLimits>): void {
  core.services.eventHub.limits = { ...DEFAULT_EVENT_STREAM_LIMITS, ...limits };
}

function hubOf(core: Core): EventHub {
  return core.services.eventHub;
}

/** How many event streams are open (of one owner, when named). */
export function openEventStreams(core: Core, ownerId?: string): number {
  return core.services.eventHub.open(ownerId);
}

/** Server-Sent Events for the UI: every core event the signed-in owner may see. */
export const eventRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/events',
    handler: ({ core, owner, req, res }) => {
      const hub = hubOf(core);
      hub.admit(owner.owner_id);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(`retry: 2000\n\n`);
      holdStream(core, res);
      const stop = hub.add({ ownerId: owner.owner_id, res });
      req.on('close', stop);
      res.on('close', stop);
      return undefined;
    },
  }),
];
