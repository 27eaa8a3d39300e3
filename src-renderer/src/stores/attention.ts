import { create } from 'zustand';
import type { Message, Room } from '../types';

/**
 * Unread and mention counts per room. What was read is the highest seq seen per room, kept in
 * localStorage per owner (the server keeps no read markers for humans). A room seen for the
 * first time starts read: old history is not "unread".
 */
export interface RoomAttention {
  lastRead: number;
  unread: number;
  mentions: number;
}

interface AttentionState {
  ownerId: string;
  rooms: Record<string, RoomAttention>;
  /** The room whose chat is on screen (its messages are read as they arrive). */
  viewing: string | null;
  notifyPermission: NotificationPermission | 'unsupported';
  setOwner: (ownerId: string) => void;
  syncRooms: (rooms: Room[]) => void;
  receive: (m: Message) => void;
  markRead: (roomId: string, seq: number) => void;
  setViewing: (roomId: string | null) => void;
  askNotifications: () => Promise<void>;
}

const key = (owner: string, room: string) => `ar.read.${owner}.${room}`;

function stored(owner: string, room: string): number | undefined {
  const v = localStorage.getItem(key(owner, room));
  return v === null ? undefined : Number(v) || 0;
}

export function mentionsOwner(m: Message, ownerId: string): boolean {
  return m.mentions.some((x) => x.kind === 'human' && x.owner_id === ownerId);
}

/** The Electron shell shows its own notifications for mentions; the browser asks the Notification API. */
const inElectron = /\bElectron\//.test(navigator.userAgent);

function notifyMention(m: Message, roomName: string) {
  if (inElectron || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  const n = new Notification(`${m.sender.name} mentioned you in ${roomName}`, { body: m.body.slice(0, 200), tag: m.message_id });
  n.onclick = () => {
    window.focus();
    window.location.hash = `#/rooms/${encodeURIComponent(m.room)}/chat`;
  };
}

let roomNames = new Map<string, string>();

export const useAttention = create<AttentionState>((set, get) => ({
  ownerId: '',
  rooms: {},
  viewing: null,
  notifyPermission: typeof Notification === 'undefined' || inElectron ? 'unsupported' : Notification.permission,
  setOwner: (ownerId) => set({ ownerId }),
  syncRooms: (rooms) => {
    const { ownerId } = get();
    roomNames = new Map(rooms.map((r) => [r.room_id, r.name]));
    set((s) => {
      const next: Record<string, RoomAttention> = {};
      for (const r of rooms) {
        let lastRead = stored(ownerId, r.room_id);
        if (lastRead === undefined) {
          lastRead = r.last_seq;
          localStorage.setItem(key(ownerId, r.room_id), String(lastRead));
        }
        const prev = s.rooms[r.room_id];
        lastRead = Math.max(lastRead, prev?.lastRead ?? 0);
        if (s.viewing === r.room_id && document.visibilityState === 'visible') lastRead = Math.max(lastRead, r.last_seq);
        const unread = Math.max(0, r.last_seq - lastRead);
        next[r.room_id] = { lastRead, unread, mentions: unread ? (prev?.mentions ?? 0) : 0 };
      }
      return { rooms: next };
    });
  },
  receive: (m) => {
    const { ownerId, viewing } = get();
    const cur = get().rooms[m.room];
    if (!cur || m.seq <= cur.lastRead) return;
    const mine = m.sender.kind === 'human' && m.sender.owner_id === ownerId;
    const seen = viewing === m.room && document.visibilityState === 'visible';
    if (mine || seen) return get().markRead(m.room, m.seq);
    const mention = mentionsOwner(m, ownerId);
    set((s) => ({ rooms: { ...s.rooms, [m.room]: { ...cur, unread: cur.unread + 1, mentions: cur.mentions + (mention ? 1 : 0) } } }));
    if (mention) notifyMention(m, roomNames.get(m.room) ?? 'a room');
  },
  markRead: (roomId, seq) => {
    const { ownerId } = get();
    const cur = get().rooms[roomId] ?? { lastRead: 0, unread: 0, mentions: 0 };
    if (seq <= cur.lastRead && cur.unread === 0) return;
    const lastRead = Math.max(cur.lastRead, seq);
    localStorage.setItem(key(ownerId, roomId), String(lastRead));
    set((s) => ({ rooms: { ...s.rooms, [roomId]: { lastRead, unread: 0, mentions: 0 } } }));
  },
  setViewing: (roomId) => set({ viewing: roomId }),
  askNotifications: async () => {
    if (typeof Notification === 'undefined') return;
    const p = await Notification.requestPermission();
    set({ notifyPermission: p });
  },
}));

/** The window title: the room on screen and what waits elsewhere. */
export function windowTitle(roomName: string | undefined, total: number): string {
  return `${total ? `(${total}) ` : ''}${roomName ? `${roomName} · ` : ''}Agent Rooms`;
}
