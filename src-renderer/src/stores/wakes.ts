import { create } from 'zustand';
import { enc, get, type ApiError } from '../api';
import type { Wake } from '../types';

type Row = Record<string, unknown>;

interface Section<T> {
  data?: T;
  status: 'loading' | 'ready' | 'error';
  error?: ApiError;
}

interface WakesState {
  rooms: Record<string, Section<Wake[]>>;
  feedback: Record<string, Section<{ task_feedback: Row[]; product_feedback: Row[] }>>;
  reports: Section<Row[]>;
  load: (roomId: string) => Promise<void>;
  loadFeedback: (roomId: string) => Promise<void>;
  loadReports: () => Promise<void>;
}

/** The first array found in a response body: the list routes name their arrays differently. */
export function firstArray<T>(body: unknown, ...keys: string[]): T[] {
  if (Array.isArray(body)) return body as T[];
  const o = (body ?? {}) as Record<string, unknown>;
  for (const k of keys) if (Array.isArray(o[k])) return o[k] as T[];
  for (const v of Object.values(o)) if (Array.isArray(v)) return v as T[];
  return [];
}

export const useWakes = create<WakesState>((set, getState) => ({
  rooms: {},
  feedback: {},
  reports: { status: 'loading' },
  load: async (roomId) => {
    if (!getState().rooms[roomId]) set((s) => ({ rooms: { ...s.rooms, [roomId]: { status: 'loading' } } }));
    const r = await get<unknown>(`/v1/rooms/${enc(roomId)}/wakes`);
    set((s) => ({
      rooms: { ...s.rooms, [roomId]: r.ok ? { status: 'ready', data: firstArray<Wake>(r.data, 'wakes') } : { status: 'error', error: r.error } },
    }));
  },
  loadFeedback: async (roomId) => {
    if (!getState().feedback[roomId]) set((s) => ({ feedback: { ...s.feedback, [roomId]: { status: 'loading' } } }));
    const r = await get<unknown>(`/v1/rooms/${enc(roomId)}/feedback`);
    set((s) => ({
      feedback: {
        ...s.feedback,
        [roomId]: r.ok
          ? { status: 'ready', data: { task_feedback: firstArray<Row>((r.data as Row).task_feedback), product_feedback: firstArray<Row>((r.data as Row).product_feedback) } }
          : { status: 'error', error: r.error },
      },
    }));
  },
  loadReports: async () => {
    const r = await get<unknown>('/v1/reports');
    set({ reports: r.ok ? { status: 'ready', data: firstArray<Row>(r.data, 'reports', 'items') } : { status: 'error', error: r.error } });
  },
}));
