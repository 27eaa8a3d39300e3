import { create } from 'zustand';
import type { ApiError, ApiResult } from '../api';
import { client } from '../client';
import type { PushResult, Task, TaskChanges } from '../types';
import { useBoard } from './board';

/**
 * Review (docs/review.md): what a task's work changed, its merge into the base branch and its
 * push. The changes move while a run works; a burst of live events is one read per
 * CHANGES_GATHER_MS at most.
 */
export const CHANGES_GATHER_MS = 2000;

/** A merge's strategy: a merge commit, or the branch's work as one commit on the base. */
export type MergeStrategy = 'merge' | 'squash';

/** Why the server refused a merge (409 CONFLICT `reason`); the folder was left exactly as it was. */
export type MergeRefusalReason =
  | 'not_on_base'
  | 'dirty'
  | 'conflict'
  | 'untracked_in_the_way'
  | 'git_too_old'
  | 'nothing_to_merge'
  | 'not_done'
  | 'no_worktree'
  | 'run_working'
  | 'already_merged';

/** The `details` of a refused merge: the paths in the way and the workspace folder. Not in shared/ yet. */
export interface MergeRefusalDetails {
  paths: string[];
  folder: string;
}

/** A refused merge as the window shows it, or another error (no details). */
export interface MergeRefusal {
  message: string;
  reason?: string;
  folder?: string;
  paths: string[];
  error: ApiError;
}

/** What the window holds of one task's changes. */
export interface ChangesEntry {
  data?: TaskChanges;
  loading: boolean;
  error?: ApiError;
  loadedAt?: number;
  /** The task's state (`version`) the answer was read at. */
  version?: string;
  /** Something may have moved them since (a live event while the tab was not shown, or the page closed). */
  stale?: boolean;
}

interface ChangesState {
  byTask: Record<string, ChangesEntry>;
  /** Reads the task's changes now (a read under way first ends; an answer older than the latest asked is dropped). */
  load: (roomId: string, taskId: string, version?: string) => Promise<void>;
  /** Reads them when the window holds none, or none of this `version` of the task, or they may have moved. */
  ensure: (roomId: string, taskId: string, version: string) => void;
  /** They may have moved while nobody looks: the next `ensure` reads them. */
  stale: (roomId: string, taskId: string) => void;
  /** A live event moved them: one read, no sooner than CHANGES_GATHER_MS after the last. */
  soon: (roomId: string, taskId: string) => void;
  merge: (roomId: string, taskId: string, body: { strategy: MergeStrategy; delete_branch: boolean }) => Promise<ApiResult<Task>>;
  push: (roomId: string, taskId: string) => Promise<ApiResult<PushResult>>;
}

export const changesKey = (roomId: string, taskId: string) => `${roomId}:${taskId}`;

/** The full answer (base and head) rather than `{files: [], reason}`. */
export function hasDiff(c: TaskChanges | undefined): c is Extract<TaskChanges, { base: unknown }> {
  return !!c && 'base' in c;
}

/** A refused merge's message, folder and paths, from the API's error (409 CONFLICT with `details`). */
export function mergeRefusal(error: ApiError): MergeRefusal {
  const d = (error.details ?? {}) as Partial<MergeRefusalDetails>;
  return {
    message: error.message,
    reason: error.reason,
    folder: typeof d.folder === 'string' ? d.folder : undefined,
    paths: Array.isArray(d.paths) ? d.paths.filter((p): p is string => typeof p === 'string') : [],
    error,
  };
}

const seqs = new Map<string, number>();
const lastRead = new Map<string, number>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();

export const useChanges = create<ChangesState>((set, getState) => {
  const put = (key: string, f: (e: ChangesEntry) => ChangesEntry) => set((s) => ({ byTask: { ...s.byTask, [key]: f(s.byTask[key] ?? { loading: false }) } }));
  return {
    byTask: {},
    load: async (roomId, taskId, version) => {
      const key = changesKey(roomId, taskId);
      version ??= getState().byTask[key]?.version;
      const seq = (seqs.get(key) ?? 0) + 1;
      seqs.set(key, seq);
      lastRead.set(key, Date.now());
      put(key, (e) => ({ ...e, loading: true, stale: false }));
      const r = await client.review.changes({ params: { id: roomId, taskId } });
      if (seqs.get(key) !== seq) return;
      // One error policy: the last good answer stays, with the error beside it.
      if (r.ok) put(key, (e) => ({ data: r.data, loading: false, loadedAt: Date.now(), version, stale: e.stale }));
      else put(key, (e) => ({ ...e, loading: false, error: r.error, version }));
    },
    ensure: (roomId, taskId, version) => {
      const e = getState().byTask[changesKey(roomId, taskId)];
      if (!e || e.stale || e.version !== version || (!e.data && !e.loading)) void getState().load(roomId, taskId, version);
    },
    stale: (roomId, taskId) => {
      const key = changesKey(roomId, taskId);
      if (getState().byTask[key] && !getState().byTask[key]!.stale) put(key, (e) => ({ ...e, stale: true }));
    },
    soon: (roomId, taskId) => {
      const key = changesKey(roomId, taskId);
      if (timers.has(key)) return;
      const wait = Math.max(0, CHANGES_GATHER_MS - (Date.now() - (lastRead.get(key) ?? 0)));
      timers.set(
        key,
        setTimeout(() => {
          timers.delete(key);
          void getState().load(roomId, taskId);
        }, wait),
      );
    },
    merge: async (roomId, taskId, body) => {
      const r = await client.review.merge({ params: { id: roomId, taskId }, body });
      // A merge moves the base (and a refusal may mean it moved): what the branch changed is read again.
      void getState().load(roomId, taskId);
      if (r.ok) void useBoard.getState().load(roomId);
      return r;
    },
    push: (roomId, taskId) => client.review.push({ params: { id: roomId, taskId }, body: {} }),
  };
});
