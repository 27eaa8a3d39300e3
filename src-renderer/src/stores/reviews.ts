import { create } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import { client } from '../client';
import type { Review } from '../types';
import { useBoard } from './board';

/**
 * Reviews of a task's work (docs/review.md "Reviews"): the ones stored (oldest first), the line
 * comments a person is collecting before sending a review, and sending it.
 */
export type ReviewVerdict = Review['verdict'];

/** A line comment not sent yet: where, the line as the diff shows it, and what the person wrote. */
export interface PendingComment {
  id: string;
  path: string;
  line: number;
  quoted: string;
  body: string;
}

interface ReviewsEntry {
  reviews?: Review[];
  loading: boolean;
  error?: ApiError;
}

interface ReviewsState {
  byTask: Record<string, ReviewsEntry>;
  pending: Record<string, PendingComment[]>;
  /** The review this window sent last, per task (what the page says it did, across the tab's re-renders). */
  sent: Record<string, Review>;
  load: (roomId: string, taskId: string) => Promise<void>;
  /** Adds a line comment to the task's pending review (or finds the one already there); its id. */
  addPending: (roomId: string, taskId: string, c: Omit<PendingComment, 'id' | 'body'>) => string;
  editPending: (roomId: string, taskId: string, id: string, body: string) => void;
  removePending: (roomId: string, taskId: string, id: string) => void;
  /** Sends the review with the pending comments; they are cleared when it was stored. */
  submit: (roomId: string, taskId: string, verdict: ReviewVerdict, body: string) => Promise<ApiResult<Review>>;
}

export const reviewsKey = (roomId: string, taskId: string) => `${roomId}:${taskId}`;
const NONE: PendingComment[] = [];
export const NO_PENDING = NONE;
let seq = 0;

export const useReviews = create<ReviewsState>((set, getState) => {
  const putPending = (key: string, f: (p: PendingComment[]) => PendingComment[]) => set((s) => ({ pending: { ...s.pending, [key]: f(s.pending[key] ?? NONE) } }));
  return {
    byTask: {},
    pending: {},
    sent: {},
    load: async (roomId, taskId) => {
      const key = reviewsKey(roomId, taskId);
      set((s) => ({ byTask: { ...s.byTask, [key]: { ...(s.byTask[key] ?? {}), loading: true } } }));
      const r = await client.review.list({ params: { id: roomId, taskId } });
      set((s) => ({
        byTask: { ...s.byTask, [key]: r.ok ? { reviews: r.data.reviews, loading: false } : { ...(s.byTask[key] ?? {}), loading: false, error: r.error } },
      }));
    },
    addPending: (roomId, taskId, c) => {
      const key = reviewsKey(roomId, taskId);
      const held = (getState().pending[key] ?? NONE).find((p) => p.path === c.path && p.line === c.line);
      if (held) return held.id;
      const id = `pc${++seq}`;
      putPending(key, (p) => [...p, { ...c, id, body: '' }]);
      // A new review under way: the note about the last one sent goes.
      if (getState().sent[key]) set((s) => ({ sent: Object.fromEntries(Object.entries(s.sent).filter(([k]) => k !== key)) }));
      return id;
    },
    editPending: (roomId, taskId, id, body) => putPending(reviewsKey(roomId, taskId), (p) => p.map((c) => (c.id === id ? { ...c, body } : c))),
    removePending: (roomId, taskId, id) => putPending(reviewsKey(roomId, taskId), (p) => p.filter((c) => c.id !== id)),
    submit: async (roomId, taskId, verdict, body) => {
      const key = reviewsKey(roomId, taskId);
      const comments = (getState().pending[key] ?? NONE).map((c) => ({ path: c.path, line: c.line, body: c.body.trim() }));
      const r = await client.review.submit({
        params: { id: roomId, taskId },
        body: { verdict, ...(body.trim() ? { body: body.trim() } : {}), ...(comments.length ? { comments } : {}) },
      });
      if (r.ok) {
        putPending(key, () => NONE);
        set((s) => ({ sent: { ...s.sent, [key]: r.data } }));
        void getState().load(roomId, taskId);
        // A follow-up task (request changes on a done task) is on the board now.
        void useBoard.getState().load(roomId);
      }
      return r;
    },
  };
});
