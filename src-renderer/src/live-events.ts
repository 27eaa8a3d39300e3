/** One EventSource on /v1/events; each named event refreshes the stores that hold its data. */
import { useRooms } from './stores/rooms';
import { useChat } from './stores/chat';
import { useBoard } from './stores/board';
import { useFiles } from './stores/files';
import { useAgents } from './stores/agents';
import { useWakes } from './stores/wakes';
import { useWorkspace } from './stores/workspace';
import { useAttention } from './stores/attention';
import { useConnection } from './stores/connection';
import { useReservations } from './stores/reservations';
import type { CoreEventType, UiEventType, WireEvent, WireEventOf } from '../../shared/core-events';
import { eventsUrl, setUnreachableHandler } from './api';

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

function refreshRoom(room: string, what: string) {
  if (what === 'board' && useBoard.getState().rooms[room]) soon(`board:${room}`, () => void useBoard.getState().load(room));
  if (what === 'members' && useRooms.getState().members[room]) soon(`members:${room}`, () => void useRooms.getState().loadMembers(room));
  if (what === 'files' && useFiles.getState().rooms[room]) soon(`files:${room}`, () => void useFiles.getState().load(room));
  if (what === 'wakes' && useWakes.getState().rooms[room]) soon(`wakes:${room}`, () => void useWakes.getState().load(room), 250);
  if (what === 'feedback' && useWakes.getState().feedback[room]) soon(`feedback:${room}`, () => void useWakes.getState().loadFeedback(room), 250);
  if (what === 'trust' && useRooms.getState().trust[room]) soon(`trust:${room}`, () => void useRooms.getState().loadTrust(room));
  if (what === 'workspace' && useWorkspace.getState().rooms[room]) soon(`workspace:${room}`, () => void useWorkspace.getState().load(room));
}

/** Everything loaded, again: after a reconnect events may have been missed. */
function refreshAll() {
  void useRooms.getState().load();
  void useRooms.getState().loadOwners();
  for (const room of Object.keys(useRooms.getState().trust)) void useRooms.getState().loadTrust(room);
  for (const room of Object.keys(useChat.getState().rooms)) void useChat.getState().loadLatest(room);
  for (const room of Object.keys(useRooms.getState().members)) refreshRoom(room, 'members');
  for (const room of Object.keys(useBoard.getState().rooms)) refreshRoom(room, 'board');
  for (const room of Object.keys(useFiles.getState().rooms)) refreshRoom(room, 'files');
  for (const room of Object.keys(useWakes.getState().rooms)) refreshRoom(room, 'wakes');
  for (const room of Object.keys(useReservations.getState().rooms)) void useReservations.getState().load(room);
  if (useAgents.getState().status === 'ready') void useAgents.getState().load();
}

const HANDLERS: LiveHandlers = {
  'message.created': (e) => {
    useChat.getState().receive(e.data);
    useAttention.getState().receive(e.data);
  },
  'rooms.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'members.changed': (e) => {
    if (e.room) refreshRoom(e.room, 'members');
    if (e.room) refreshRoom(e.room, 'trust');
    soon('rooms', () => void useRooms.getState().load());
  },
  'instances.changed': (e) => e.room && refreshRoom(e.room, 'members'),
  'trust.changed': (e) => {
    soon('rooms', () => void useRooms.getState().load());
    if (e.room) refreshRoom(e.room, 'members');
    if (e.room) refreshRoom(e.room, 'trust');
  },
  'board.changed': (e) => {
    if (!e.room) return;
    refreshRoom(e.room, 'board');
    // What each live instance works on follows its leases.
    refreshRoom(e.room, 'members');
    refreshRoom(e.room, 'feedback');
  },
  'files.changed': (e) => e.room && refreshRoom(e.room, 'files'),
  'workspace.changed': (e) => e.room && refreshRoom(e.room, 'workspace'),
  // A room's context_version (in the rooms list) moves with its focus and decisions.
  'context.changed': () => soon('rooms', () => void useRooms.getState().load()),
  'reservations.changed': (e) => e.room && useReservations.getState().rooms[e.room] && soon(`reservations:${e.room}`, () => void useReservations.getState().load(e.room!)),
  'wakes.changed': (e) => e.room && refreshRoom(e.room, 'wakes'),
  'feedback.changed': (e) => e.room && refreshRoom(e.room, 'feedback'),
  'reports.changed': () => {
    if (useWakes.getState().reports.data) soon('reports', () => void useWakes.getState().loadReports());
  },
  'agents.changed': () => {
    if (useAgents.getState().status !== 'idle') soon('agents', () => void useAgents.getState().load());
  },
  'runners.changed': () => {
    for (const plate of Object.keys(useAgents.getState().runners)) soon(`runners:${plate}`, () => void useAgents.getState().loadRunners(plate));
  },
  'owners.changed': () => soon('owners', () => void useRooms.getState().loadOwners()),
  // BackupPanel keeps its own state: it listens for this window event.
  'backup.changed': () => soon('backup', () => window.dispatchEvent(new Event(BACKUP_CHANGED))),
};

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
        handle(JSON.parse((ev as MessageEvent<string>).data) as WireEvent);
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
