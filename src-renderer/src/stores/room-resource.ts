import { create, type StoreApi, type UseBoundStore } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import type { CoreEventType, UiEventType } from '../../../shared/core-events';

/**
 * One room's copy of a server resource (its board, chat, files, …), as every room store holds it.
 *
 * The error policy, the same for every resource:
 * - a success replaces `data` (or merges into it, see `accept`), clears `error`, sets `loadedAt`;
 * - a failure keeps the last good `data` and sets `error` to the API's error (code, message and
 *   `error_id`, as the server sent them; status 0 when the server could not be reached), so a view
 *   shows what it had and says why it is not fresh; a view with no data yet shows the error;
 * - nothing is thrown into React: a loader that throws (a bug, a malformed answer) is a failure too;
 * - a 401 also ends the session: api.ts hands it to the session store, which shows the sign-in page.
 *
 * The sequence guard: each load of a room takes the next number; an answer (success or failure)
 * whose number is not the latest asked for that room is dropped, so a slow answer cannot overwrite
 * a newer one (a refresh racing the first load, a board asked again with another filter).
 * Rooms are keyed, so one room's answer never lands in another room's view.
 */
export interface RoomResource<T> {
  data?: T;
  /** A load of this room is under way. */
  loading: boolean;
  error?: ApiError;
  /** When `data` last came from the server (ms). */
  loadedAt?: number;
}

/** What a view shows for a room resource: its data, the first load, or the error of a load that left nothing to show. */
export function phaseOf(r: RoomResource<unknown> | undefined): 'ready' | 'loading' | 'error' {
  if (r?.data !== undefined) return 'ready';
  return r?.error && !r.loading ? 'error' : 'loading';
}

/** The room's state after an answer: the one error policy above. */
export function settle<T, R>(held: RoomResource<T> | undefined, result: ApiResult<R>, accept: (response: R, held: RoomResource<T> | undefined) => T): RoomResource<T> {
  if (!result.ok) return { ...held, loading: false, error: result.error };
  return { data: accept(result.data, held), loading: false, error: undefined, loadedAt: Date.now() };
}

/** A loader that threw, as the failure the views already know how to show. */
function thrown(what: string, err: unknown): ApiResult<never> {
  const why = err instanceof Error ? err.message : String(err);
  return { ok: false, status: 0, error: { code: 'CLIENT_ERROR', message: `The page could not read the ${what}: ${why}`, status: 0 } };
}

/** Counts the loads of each key, so an answer can tell whether a newer load was asked since. */
export function sequencer() {
  let next = 0;
  const latest = new Map<string, number>();
  return {
    ask(key: string): number {
      latest.set(key, ++next);
      return next;
    },
    isLatest: (key: string, n: number) => latest.get(key) === n,
  };
}

/** The state every room resource store has: each room's copy, and the loader. */
export interface RoomResourceState<T> {
  rooms: Record<string, RoomResource<T>>;
  /** Loads (or reloads) one room. Resolves when the answer is applied or dropped; never rejects. */
  load: (roomId: string) => Promise<void>;
}

/** What a store's own actions get to work with, beside its state. */
export interface RoomResourceKit<T, S> {
  set: StoreApi<S>['setState'];
  get: () => S;
  /** Changes the data a room holds (a page appended, a live item); a room without data is left alone. */
  update: (roomId: string, change: (data: T) => T) => void;
}

type Accept<T, R> = (response: R, held: RoomResource<T> | undefined) => T;

export type RoomResourceSpec<T, X, R> = {
  /** What the resource is, in words ("board", "files"): an error the page itself hit names it. */
  name: string;
  /** One request for one room through api.ts (`state`: the store as it is when the load starts). */
  request: (roomId: string, state: RoomResourceState<T> & X) => Promise<ApiResult<R>>;
  /** Live events (with this room) after which a room this store holds is loaded again. */
  refreshOn?: readonly UiEventType[];
  /** How long a burst of those events is gathered into one reload (ms). */
  refreshDelayMs?: number;
  /** The store's own state and actions, beside `rooms` and `load`. */
  extend?: (kit: RoomResourceKit<T, RoomResourceState<T> & X>) => X;
} & ([R] extends [T]
  ? { /** The room's data after an answer: by default the answer itself. */ accept?: Accept<T, R> }
  : { /** The room's data after an answer (the answer is an envelope, or merges into what the room holds). */ accept: Accept<T, R> });

/** A store the live events reach: what it follows, and how to reload the rooms it holds. */
interface Follower {
  refreshOn: readonly UiEventType[];
  refresh: (roomId: string) => void;
  reloadAll: () => void;
}
const followers: Follower[] = [];

/** After a live event about a room: every room resource that follows this event and holds the room reloads it (coalesced). */
export function refreshRoomResources(type: CoreEventType, roomId: string): void {
  for (const f of followers) if ((f.refreshOn as readonly CoreEventType[]).includes(type)) f.refresh(roomId);
}

/** After the event stream reconnects (events may have been missed): every room any resource holds, again. */
export function reloadAllRoomResources(): void {
  for (const f of followers) f.reloadAll();
}

/**
 * A store of one per-room resource: `rooms[roomId]` is a RoomResource, `load(roomId)` fetches it
 * with the sequence guard and the error policy above, and the live events in `refreshOn` reload
 * the rooms it holds. `extend` adds the store's own state and actions (paging, edits, filters).
 */
export function createRoomResource<T, X extends object = object, R = T>(spec: RoomResourceSpec<T, X, R>): UseBoundStore<StoreApi<RoomResourceState<T> & X>> {
  type S = RoomResourceState<T> & X;
  const accept: Accept<T, R> = spec.accept ?? ((response) => response as unknown as T);
  const seq = sequencer();
  const store = create<S>()((set, get) => {
    const setRoom = (roomId: string, f: (held: RoomResource<T> | undefined) => RoomResource<T>) =>
      set((s) => ({ rooms: { ...s.rooms, [roomId]: f(s.rooms[roomId]) } }) as Partial<S>);
    const load = async (roomId: string): Promise<void> => {
      const n = seq.ask(roomId);
      setRoom(roomId, (held) => ({ ...held, loading: true }));
      let result: ApiResult<R>;
      try {
        result = await spec.request(roomId, get());
      } catch (err) {
        result = thrown(spec.name, err);
      }
      if (!seq.isLatest(roomId, n)) return;
      setRoom(roomId, (held) => {
        try {
          return settle(held, result, accept);
        } catch (err) {
          return settle(held, thrown(spec.name, err), accept);
        }
      });
    };
    const update = (roomId: string, change: (data: T) => T) =>
      set((s) => {
        const held = s.rooms[roomId];
        if (held?.data === undefined) return s;
        return { rooms: { ...s.rooms, [roomId]: { ...held, data: change(held.data) } } } as Partial<S>;
      });
    const own = spec.extend?.({ set, get, update }) ?? ({} as X);
    return { ...own, rooms: {}, load } as S;
  });

  const pending = new Set<string>();
  followers.push({
    refreshOn: spec.refreshOn ?? [],
    refresh: (roomId) => {
      if (!store.getState().rooms[roomId] || pending.has(roomId)) return;
      pending.add(roomId);
      setTimeout(() => {
        pending.delete(roomId);
        void store.getState().load(roomId);
      }, spec.refreshDelayMs ?? 120);
    },
    reloadAll: () => {
      for (const roomId of Object.keys(store.getState().rooms)) void store.getState().load(roomId);
    },
  });
  return store;
}
