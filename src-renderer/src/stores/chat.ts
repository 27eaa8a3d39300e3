import type { ApiResult } from '../api';
import { client } from '../client';
import type { History, Message, PostedMessage } from '../types';
import { createRoomResource, type RoomResource } from './room-resource';

export const PAGE = 200;
/** A window around a message holds this many newer messages after it (the rest of the page is older). */
const AROUND_AFTER = 60;

/** A room's chat as this tab holds it: the loaded history, newest last, and the paging back through older messages. */
export interface ChatLog {
  messages: Message[];
  hasMore: boolean;
  nextBeforeSeq: number | null;
  loadingOlder: boolean;
  /** Messages that arrived live since the room was opened (for the aria-live region). */
  liveCount: number;
  /**
   * A window around an older message (a search hit, a link) rather than the latest messages:
   * live messages are not appended (they would leave a gap) until "Jump to latest".
   */
  detached?: boolean;
}

export type RoomChat = RoomResource<ChatLog>;

interface ChatActions {
  /** The latest page (the room's load): merged into what the room holds, so paging and live messages stay. */
  loadLatest: (roomId: string) => Promise<void>;
  loadOlder: (roomId: string) => Promise<void>;
  receive: (msg: Message) => void;
  /** Loads the messages around `seq` in place of what the room holds (a link to a message not loaded). */
  loadAround: (roomId: string, seq: number) => Promise<boolean>;
  /** Back from a window around an older message to the latest messages. */
  jumpToLatest: (roomId: string) => Promise<void>;
  send: (roomId: string, body: string, mentionTargets: string[], parentId?: string) => Promise<ApiResult<PostedMessage>>;
}

/** Merges by seq (a live message may race the page that also holds it). */
function merge(a: Message[], b: Message[]): Message[] {
  if (!a.length) return b;
  if (!b.length) return a;
  if (b[0]!.seq > a[a.length - 1]!.seq) return [...a, ...b];
  if (b[b.length - 1]!.seq < a[0]!.seq) return [...b, ...a];
  const bySeq = new Map<number, Message>();
  for (const m of a) bySeq.set(m.seq, m);
  for (const m of b) bySeq.set(m.seq, m);
  return [...bySeq.values()].sort((x, y) => x.seq - y.seq);
}

const emptyLog: ChatLog = { messages: [], hasMore: false, nextBeforeSeq: null, loadingOlder: false, liveCount: 0 };

/** The latest page joined to what the room holds; its paging counts only when nothing older was held yet. */
function withLatest(page: History, held: RoomChat | undefined): ChatLog {
  const log = held?.data ?? emptyLog;
  // A window around an older message stays as it is (the latest page would leave a gap in it).
  if (log.detached) return log;
  const fresh = held?.loadedAt === undefined || log.messages.length === 0;
  return {
    ...log,
    messages: merge(log.messages, page.messages),
    hasMore: fresh ? page.has_more : log.hasMore,
    nextBeforeSeq: fresh ? page.next_before_seq : log.nextBeforeSeq,
  };
}

export const useChat = createRoomResource<ChatLog, ChatActions, History>({
  name: 'messages',
  request: (roomId) => client.messages.history({ params: { id: roomId }, query: { limit: PAGE } }),
  accept: withLatest,
  // Live messages arrive whole (receive); a reconnect loads the latest page again.
  extend: ({ set, get: getState, update }) => ({
    loadLatest: (roomId) => getState().load(roomId),
    loadOlder: async (roomId) => {
      const cur = getState().rooms[roomId]?.data;
      if (!cur || !cur.hasMore || cur.loadingOlder || cur.nextBeforeSeq === null) return;
      update(roomId, (c) => ({ ...c, loadingOlder: true }));
      const r = await client.messages.history({ params: { id: roomId }, query: { limit: PAGE, before_seq: cur.nextBeforeSeq } });
      // An older page joins what the room holds by seq, so it needs no sequence guard; its failure is the room's error.
      set((s) => {
        const c = s.rooms[roomId];
        if (!c?.data) return s;
        const log = r.ok
          ? { ...c.data, loadingOlder: false, messages: merge(c.data.messages, r.data.messages), hasMore: r.data.has_more, nextBeforeSeq: r.data.next_before_seq }
          : { ...c.data, loadingOlder: false };
        return { rooms: { ...s.rooms, [roomId]: { ...c, data: log, error: r.ok ? undefined : r.error } } };
      });
    },
    loadAround: async (roomId, seq) => {
      const r = await client.messages.history({ params: { id: roomId }, query: { limit: PAGE, before_seq: seq + AROUND_AFTER + 1 } });
      if (!r.ok) return false;
      const msgs = r.data.messages;
      // Fewer than asked after the target: the window reaches the latest message.
      const detached = msgs.length > 0 && msgs[msgs.length - 1]!.seq >= seq + AROUND_AFTER;
      set((s) => ({
        rooms: {
          ...s.rooms,
          [roomId]: {
            ...(s.rooms[roomId] ?? { loading: false }),
            loading: false,
            loadedAt: Date.now(),
            data: { messages: msgs, hasMore: r.data.has_more, nextBeforeSeq: r.data.next_before_seq, loadingOlder: false, liveCount: 0, detached },
          },
        },
      }));
      return msgs.some((m) => m.seq === seq);
    },
    jumpToLatest: async (roomId) => {
      set((s) => {
        const c = s.rooms[roomId];
        return c ? { rooms: { ...s.rooms, [roomId]: { ...c, data: undefined, loadedAt: undefined } } } : s;
      });
      await getState().load(roomId);
    },
    receive: (msg) => {
      set((s) => {
        const c = s.rooms[msg.room];
        if (!c) return s;
        const log = c.data ?? emptyLog;
        if (log.detached) return { rooms: { ...s.rooms, [msg.room]: { ...c, data: { ...log, liveCount: log.liveCount + 1 } } } };
        if (log.messages.some((m) => m.seq === msg.seq)) return s;
        return { rooms: { ...s.rooms, [msg.room]: { ...c, data: { ...log, messages: merge(log.messages, [msg]), liveCount: log.liveCount + 1 } } } };
      });
    },
    send: async (roomId, body, mentionTargets, parentId) => {
      const r = await client.messages.post({
        params: { id: roomId },
        body: {
          body,
          ...(mentionTargets.length ? { mention_targets: mentionTargets } : {}),
          ...(parentId ? { parent_id: parentId } : {}),
          idempotency_key: crypto.randomUUID(),
        },
      });
      if (r.ok) getState().receive(r.data);
      return r;
    },
  }),
});
