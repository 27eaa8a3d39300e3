/**
 * One EventSource on the server's event stream (contracts.events.stream); each named event
 * refreshes the stores that hold its data. The room resources (stores/room-resource.ts) name the
 * events they follow in their own store (`refreshOn`): every event about a room reaches them
 * after its handler here.
 */
import { useRooms } from './stores/rooms';
import { useChat } from './stores/chat';
import { useAgents } from './stores/agents';
import { useReports } from './stores/feedback';
import { useAttention } from './stores/attention';
import { useConnection } from './stores/connection';
import { useSession } from './stores/session';
import { useTranscripts } from './stores/transcripts';
import { refreshRoomResources, reloadAllRoomResources } from './stores/room-resource';
import type { CoreEventType, UiEventType, WireEvent, WireEventOf } from '../../shared/core-events';
import { setUnreachableHandler } from './api';
import { eventsUrl } from './session-api';

/**
 * A handler per event of shared/core-events.ts: a key that is not an event fails to compile, and
 * so does a missing handler for an event the UI must follow (all but SERVER_ONLY_EVENTS).
 */
type LiveHandlers = { [K in CoreEventType]?: (e: WireEventOf<K>) => void } & { [K in UiEventType]: (e: WireEventOf<K>) => void };

export type LiveState = 'connecting' | 'live' | 'reconnecting';
let liveListeners: Array<(s: LiveState) => void> = [];
let liveState: LiveState = 'connecting';
export function onLiveState(f: (s: LiveState) => void): () => void {
  liveListeners.push(f);
  f(liveState);
  return () => {
    liveListeners = liveListeners.filter((l) => l !== f);
  };
}
function setLive(s: LiveState) {
  liveState = s;
  if (s === 'live') useConnection.getState().setOnline(true);
  if (s === 'reconnecting') useConnection.getState().setOnline(false);
  for (const l of liveListeners) l(s);
}

/** Coalesces bursts (an agent completing many tasks) into one refetch per key. */
const timers = new Map<string, ReturnType<typeof setTimeout>>();
function soon(key: string, f: () => void, ms = 120) {
  if (timers.has(key)) return;
  timers.set(
    key,
    setTimeout(() => {
      timers.delete(key);
      f();
    }, ms),
  );
}

/** Everything loaded, again: after a reconnect events may have been missed. */
function refreshAll() {
  void useRooms.getState().load();
  void useRooms.getState().loadOwners();
  reloadAllRoomResources();
  if (useAgents.getState().status === 'ready') void useAgents.getState().load();
}

/** For events only room resources follow: board (with members and feedback), files, workspace, reservations, wakes. */
const roomResourcesOnly = () => undefined;

const HANDLERS: LiveHandlers = {
  'message.created': (e) => {
    useChat.getState().receive(e.data);
    useAttention.getState().receive(e.data);
  },
  'rooms.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'members.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'instances.changed': roomResourcesOnly,
  'trust.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'board.changed': roomResourcesOnly,
  'files.changed': roomResourcesOnly,
  'workspace.changed': roomResourcesOnly,
  // A room's context_version (in the rooms list) moves with its focus and decisions.
  'context.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'reservations.changed': roomResourcesOnly,
  'wakes.changed': roomResourcesOnly,
  // A running run printed more: the transcripts the window follows read what follows (stores/transcripts.ts).
  'wake.transcript': (e) => useTranscripts.getState().grew(e.data.wake_id, e.data.seq),
  'feedback.changed': roomResourcesOnly,
  'reports.changed': () => {
    if (useReports.getState().reports.data) soon('reports', () => void useReports.getState().load());
  },
  'agents.changed': () => {
    if (useAgents.getState().status !== 'idle') soon('agents', () => void useAgents.getState().load());
  },
  'runners.changed': () => {
    for (const plate of Object.keys(useAgents.getState().runners)) soon(`runners:${plate}`, () => void useAgents.getState().loadRunners(plate));
  },
  'owners.changed': (e) => {
    soon('owners', () => void useRooms.getState().loadOwners());
    // My own rights changed (the primary owner allowed my runners): my pages read who I am again, live.
    if (e.data && e.data.owner_id === useSession.getState().me?.owner_id) soon('me', () => void useSession.getState().refresh());
  },
  // BackupPanel keeps its own state: it listens for this window event.
  'backup.changed': () => soon('backup', () => window.dispatchEvent(new Event(BACKUP_CHANGED))),
};

/** Views that follow many rooms at once (Needs you, per-message wake status) hear every event here. */
type AnyListener = (type: CoreEventType, e: WireEvent) => void;
const anyListeners = new Set<AnyListener>();
export function onLiveEvent(f: AnyListener): () => void {
  anyListeners.add(f);
  return () => void anyListeners.delete(f);
}

/** The window event BackupPanel reloads on. */
export const BACKUP_CHANGED = 'agent-rooms:backup-changed';

let source: EventSource | null = null;
let running = false;
let wasOpen = false;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let retryMs = 1000;

/**
 * The stream is authorised by a one-use ticket on its URL (EventSource cannot send the
 * session header). A dropped stream cannot reuse its ticket, so every reconnect fetches a
 * fresh one, backing off while the server is away.
 */
async function connect(): Promise<void> {
  if (!running) return;
  const url = await eventsUrl().catch(() => null);
  if (!running) return;
  if (!url) return scheduleReconnect();
  const es = new EventSource(url);
  source = es;
  es.onopen = () => {
    retryMs = 1000;
    if (wasOpen) refreshAll();
    wasOpen = true;
    setLive('live');
  };
  es.onerror = () => {
    setLive('reconnecting');
    // The browser would retry with the spent ticket: close and reconnect with a new one.
    es.close();
    if (source === es) source = null;
    scheduleReconnect();
  };
  for (const [type, handle] of Object.entries(HANDLERS) as Array<[CoreEventType, (e: WireEvent) => void]>) {
    es.addEventListener(type, (ev) => {
      try {
        const e = JSON.parse((ev as MessageEvent<string>).data) as WireEvent;
        handle(e);
        if (e.room) refreshRoomResources(type, e.room);
        for (const l of anyListeners) l(type, e);
      } catch {
        // a malformed event is ignored; the next refetch repairs the view
      }
    });
  }
}

function scheduleReconnect(): void {
  if (!running || retryTimer) return;
  setLive('reconnecting');
  retryTimer = setTimeout(() => {
    retryTimer = undefined;
    void connect();
  }, retryMs);
  retryMs = Math.min(retryMs * 2, 15_000);
}

export function startEvents(): void {
  if (running) return;
  running = true;
  // A request that cannot reach the server says so at once (unless the stream is demonstrably up).
  setUnreachableHandler(() => {
    if (source?.readyState !== EventSource.OPEN) setLive('reconnecting');
  });
  void connect();
}

export function stopEvents(): void {
  running = false;
  wasOpen = false;
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = undefined;
  source?.close();
  source = null;
}
