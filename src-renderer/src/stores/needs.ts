import { create } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import { client } from '../client';
import { onLiveEvent } from '../live-events';
import { useAttention } from './attention';
import type { Invitation, NeedItem, Room, Task, Wake } from '../types';

/** One item of Needs you (docs/needs-you.md): the contract's record (shared/api-types.ts). */
export type { NeedItem };

/**
 * Routes another part of the server may not have yet (held wakes, retries): a 404 or 405 hides
 * the action for the rest of the session instead of failing each time.
 */
const missing = new Set<string>();
export function routeMissing(kind: string): boolean {
  return missing.has(kind);
}
export async function optionalCall<T>(kind: string, call: Promise<ApiResult<T>>): Promise<ApiResult<T>> {
  const r = await call;
  // A route this server does not have answers 405, or 404 "no route …" (a missing record says otherwise).
  if (!r.ok && (r.status === 405 || (r.status === 404 && /^no route/i.test(r.error.message)))) missing.add(kind);
  return r;
}

/** What an item is called in lists, buttons and the Undo note. */
export const NEED_LABEL: Record<NeedItem['kind'], string> = {
  agent_stalled: 'Agent stalled',
  wake_failed: 'Wake failed',
  wake_held: 'Wake held',
  task_failed: 'Task failed',
  task_blocked: 'Task blocked',
  lease_stale: 'Stale lease',
  blocked_by_failed: 'Waits on a failed task',
  mention: 'Mentioned you',
};

/** The reload after live events waits at least this long after the last one: one request for a burst, not one per event. */
export const NEEDS_RELOAD_MS = 3000;

interface NeedsState {
  items: NeedItem[];
  truncated: boolean;
  /** Rooms other owners invited me to, waiting for Accept or Decline. */
  invitations: Invitation[];
  invitationsTotal: number;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error?: ApiError;
  /** The item just dismissed, for Undo. */
  lastDismissed?: NeedItem;
  dismissed: NeedItem[];
  dismissedStatus: 'idle' | 'loading' | 'ready' | 'error';
  load: () => Promise<void>;
  /** A reload soon, coalesced: at most one every NEEDS_RELOAD_MS however many events arrive. */
  reloadSoon: () => void;
  retryWake: (w: Wake) => Promise<ApiResult<unknown>>;
  stopWake: (w: Wake, requeue: boolean) => Promise<ApiResult<unknown>>;
  releaseWake: (w: Wake) => Promise<ApiResult<unknown>>;
  dropWake: (w: Wake) => Promise<ApiResult<unknown>>;
  retryTask: (t: Task, assignee?: string) => Promise<ApiResult<unknown>>;
  releaseTask: (t: Task) => Promise<ApiResult<unknown>>;
  dismiss: (i: NeedItem) => Promise<ApiResult<unknown>>;
  undo: () => Promise<ApiResult<unknown> | undefined>;
  restore: (i: NeedItem) => Promise<ApiResult<unknown>>;
  loadDismissed: () => Promise<void>;
  accept: (room: string) => Promise<ApiResult<Room>>;
  decline: (room: string) => Promise<ApiResult<unknown>>;
  /** Mentions of me in this room up to `seq` were read on screen: acknowledged, they leave. */
  acknowledge: (room: string, seq: number) => void;
}

const keyOf = (i: Pick<NeedItem, 'kind' | 'ref'>) => `${i.kind}:${i.ref}`;

let seq = 0;
/**
 * Per room, the highest message seq this window acknowledged: a load the server answered before
 * the acknowledgement landed still lists those mentions, and they must not come back (they would
 * count in the title again, with nothing left to read them away).
 */
const acked = new Map<string, number>();
const stillWaits = (i: NeedItem) => i.kind !== 'mention' || (i.message?.seq ?? Infinity) > (acked.get(i.room.room_id) ?? -Infinity);
let timer: ReturnType<typeof setTimeout> | undefined;
let lastLoad = 0;
export const useNeeds = create<NeedsState>((set, getState) => {
  const after = <T>(r: ApiResult<T>) => {
    if (r.ok) void getState().load();
    return r;
  };
  return {
    items: [],
    truncated: false,
    invitations: [],
    invitationsTotal: 0,
    status: 'idle',
    dismissed: [],
    dismissedStatus: 'idle',
    load: async () => {
      const mine = ++seq;
      lastLoad = Date.now();
      if (getState().status === 'idle') set({ status: 'loading' });
      const [r, inv] = await Promise.all([client.needs.list(), client.rooms.invitations()]);
      if (mine !== seq) return;
      if (r.ok) set({ items: r.data.items.filter(stillWaits), truncated: r.data.truncated, status: 'ready', error: undefined });
      else set({ status: getState().status === 'ready' ? 'ready' : 'error', error: r.error });
      if (inv.ok) set({ invitations: inv.data.invitations, invitationsTotal: inv.data.total });
    },
    reloadSoon: () => {
      if (timer) return;
      timer = setTimeout(
        () => {
          timer = undefined;
          void getState().load();
        },
        Math.max(250, NEEDS_RELOAD_MS - (Date.now() - lastLoad)),
      );
    },
    retryWake: async (w) => after(await optionalCall('wake-retry', client.wakes.retry({ params: { id: w.wake_id } }))),
    // Stop fails the running wake and kills its runner; requeue is then the retry of that failed wake.
    stopWake: async (w, requeue) => {
      const stopped = await optionalCall('wake-stop', client.wakes.stop({ params: { id: w.wake_id } }));
      if (!stopped.ok || !requeue) return after(stopped);
      return after(await optionalCall('wake-retry', client.wakes.retry({ params: { id: w.wake_id } })));
    },
    releaseWake: async (w) => after(await optionalCall('wake-release', client.wakes.release({ params: { id: w.wake_id } }))),
    dropWake: async (w) => after(await optionalCall('wake-drop', client.wakes.drop({ params: { id: w.wake_id } }))),
    retryTask: async (t, assignee) => after(await optionalCall('task-retry', client.tasks.retry({ params: { id: t.room, taskId: t.task_id }, body: assignee ? { assignee } : {} }))),
    releaseTask: async (t) => after(await client.tasks.release({ params: { id: t.room, taskId: t.task_id } })),
    dismiss: async (i) => {
      // At once on screen; the server keeps it (per owner) until it is restored.
      set((s) => ({ items: s.items.filter((x) => keyOf(x) !== keyOf(i)), lastDismissed: i }));
      const r = await client.needs.dismiss({ body: { kind: i.kind, ref: i.ref } });
      if (!r.ok) set({ lastDismissed: undefined });
      if (getState().dismissedStatus !== 'idle') void getState().loadDismissed();
      return after(r);
    },
    undo: async () => {
      const i = getState().lastDismissed;
      if (!i) return undefined;
      set({ lastDismissed: undefined });
      return getState().restore(i);
    },
    restore: async (i) => {
      const r = await client.needs.restore({ params: { kind: i.kind, ref: i.ref } });
      set((s) => ({ dismissed: s.dismissed.filter((x) => keyOf(x) !== keyOf(i)) }));
      return after(r);
    },
    loadDismissed: async () => {
      if (getState().dismissedStatus === 'idle') set({ dismissedStatus: 'loading' });
      const r = await client.needs.dismissed();
      set(r.ok ? { dismissed: r.data.items, dismissedStatus: 'ready' } : { dismissedStatus: 'error' });
    },
    accept: async (room) => {
      const r = await client.rooms.acceptInvitation({ params: { id: room } });
      set((s) => ({ invitations: s.invitations.filter((x) => x.room.room_id !== room) }));
      return after(r);
    },
    decline: async (room) => {
      const r = await client.rooms.declineInvitation({ params: { id: room } });
      set((s) => ({ invitations: s.invitations.filter((x) => x.room.room_id !== room) }));
      return after(r);
    },
    acknowledge: (room, upTo) => {
      const read = getState().items.filter((i) => i.kind === 'mention' && i.room.room_id === room && (i.message?.seq ?? Infinity) <= upTo);
      if (!read.length) return;
      acked.set(room, Math.max(upTo, acked.get(room) ?? -Infinity));
      set((s) => ({ items: s.items.filter((i) => !read.includes(i)) }));
      // Refused (not a member any more, say): forget it, so the server's list says what waits.
      void client.needs.acknowledge({ params: { id: room }, body: { seq: upTo } }).then((r) => {
        if (r.ok) return;
        if (acked.get(room) === upTo) acked.delete(room);
        void getState().load();
      });
    },
  };
});

/** How many things wait on me: the items and the invitations (the navigation's count and the tab title's). */
export function needsCount(s: Pick<NeedsState, 'items' | 'invitationsTotal'>): number {
  return s.items.length + s.invitationsTotal;
}

let following: (() => void) | undefined;

/**
 * Needs you follows the server for the whole signed-in window (its count is in the navigation):
 * loaded once, then again after the events that can change it, coalesced (reloadSoon). A room
 * read on screen acknowledges its mentions of me.
 */
export function followNeeds(): () => void {
  if (following) return following;
  void useNeeds.getState().load();
  const RELOAD_ON = new Set(['board.changed', 'wakes.changed', 'message.created', 'rooms.changed', 'members.changed']);
  const off = onLiveEvent((type) => {
    if (RELOAD_ON.has(type)) useNeeds.getState().reloadSoon();
  });
  const offRead = useAttention.subscribe((s, prev) => {
    const room = s.viewing;
    if (!room || document.visibilityState !== 'visible') return;
    const read = s.rooms[room]?.lastRead ?? 0;
    if (room !== prev.viewing || read > (prev.rooms[room]?.lastRead ?? 0)) useNeeds.getState().acknowledge(room, read);
  });
  // A mention that a load brings in after its room was read on screen is acknowledged then.
  const offLoaded = useNeeds.subscribe((s, prev) => {
    const { viewing, rooms } = useAttention.getState();
    if (s.items !== prev.items && viewing && document.visibilityState === 'visible') s.acknowledge(viewing, rooms[viewing]?.lastRead ?? 0);
  });
  following = () => {
    off();
    offRead();
    offLoaded();
    acked.clear();
    following = undefined;
  };
  return following;
}
