import { create } from 'zustand';
import { enc, get, post, type ApiError, type ApiResult } from '../api';
import type { History, Message } from '../types';

export const PAGE = 200;

export interface RoomChat {
  messages: Message[];
  hasMore: boolean;
  nextBeforeSeq: number | null;
  status: 'loading' | 'ready' | 'error';
  loadingOlder: boolean;
  error?: ApiError;
  /** Messages that arrived live since the room was opened (for the aria-live region). */
  liveCount: number;
}

interface ChatState {
  rooms: Record<string, RoomChat>;
  loadLatest: (roomId: string) => Promise<void>;
  loadOlder: (roomId: string) => Promise<void>;
  receive: (msg: Message) => void;
  send: (roomId: string, body: string, mentionTargets: string[], parentId?: string) => Promise<ApiResult<Message>>;
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

export const useChat = create<ChatState>((set, getState) => ({
  rooms: {},
  loadLatest: async (roomId) => {
    const prev = getState().rooms[roomId];
    if (!prev) {
      set((s) => ({ rooms: { ...s.rooms, [roomId]: { messages: [], hasMore: false, nextBeforeSeq: null, status: 'loading', loadingOlder: false, liveCount: 0 } } }));
    }
    const r = await get<History>(`/v1/rooms/${enc(roomId)}/messages?limit=${PAGE}`);
    set((s) => {
      const cur = s.rooms[roomId]!;
      if (!r.ok) return { rooms: { ...s.rooms, [roomId]: { ...cur, status: 'error', error: r.error } } };
      const fresh = !prev || prev.messages.length === 0;
      return {
        rooms: {
          ...s.rooms,
          [roomId]: {
            ...cur,
            status: 'ready',
            error: undefined,
            messages: merge(cur.messages, r.data.messages),
            hasMore: fresh ? r.data.has_more : cur.hasMore,
            nextBeforeSeq: fresh ? r.data.next_before_seq : cur.nextBeforeSeq,
          },
        },
      };
    });
  },
  loadOlder: async (roomId) => {
    const cur = getState().rooms[roomId];
    if (!cur || !cur.hasMore || cur.loadingOlder || cur.nextBeforeSeq === null) return;
    set((s) => ({ rooms: { ...s.rooms, [roomId]: { ...s.rooms[roomId]!, loadingOlder: true } } }));
    const r = await get<History>(`/v1/rooms/${enc(roomId)}/messages?limit=${PAGE}&before_seq=${cur.nextBeforeSeq}`);
    set((s) => {
      const c = s.rooms[roomId]!;
      if (!r.ok) return { rooms: { ...s.rooms, [roomId]: { ...c, loadingOlder: false, error: r.error } } };
      return {
        rooms: {
          ...s.rooms,
          [roomId]: { ...c, loadingOlder: false, error: undefined, messages: merge(c.messages, r.data.messages), hasMore: r.data.has_more, nextBeforeSeq: r.data.next_before_seq },
        },
      };
    });
  },
  receive: (msg) => {
    set((s) => {
      const c = s.rooms[msg.room];
      if (!c) return s;
      if (c.messages.some((m) => m.seq === msg.seq)) return s;
      return { rooms: { ...s.rooms, [msg.room]: { ...c, messages: merge(c.messages, [msg]), liveCount: c.liveCount + 1 } } };
    });
  },
  send: async (roomId, body, mentionTargets, parentId) => {
    const r = await post<Message>(`/v1/rooms/${enc(roomId)}/messages`, {
      body,
      ...(mentionTargets.length ? { mention_targets: mentionTargets } : {}),
      ...(parentId ? { parent_id: parentId } : {}),
      idempotency_key: crypto.randomUUID(),
    });
    if (r.ok) getState().receive(r.data);
    return r;
  },
}));
