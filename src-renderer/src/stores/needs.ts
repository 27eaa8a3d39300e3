import { create } from 'zustand';
import { get, post, enc, type ApiError, type ApiResult } from '../api';
import type { Message, Task, Wake } from '../types';

/** One item of GET /v1/needs-you (docs/needs-you.md). */
export interface NeedItem {
  kind: 'agent_stalled' | 'wake_failed' | 'wake_held' | 'task_failed' | 'task_blocked' | 'lease_stale' | 'blocked_by_failed' | 'mention';
  room: { room_id: string; name: string };
  action: 'stop' | 'retry' | 'release' | 'reassign' | 'open';
  at: string;
  wake?: Wake;
  task?: Task;
  failed_dep?: string;
  message?: Message;
}

/**
 * Routes another part of the server may not have yet (held wakes, retries): a 404 or 405 hides
 * the action for the rest of the session instead of failing each time.
 */
const missing = new Set<string>();
export function routeMissing(kind: string): boolean {
  return missing.has(kind);
}
export async function optionalPost(kind: string, path: string, body: unknown = {}): Promise<ApiResult<unknown>> {
  const r = await post(path, body);
  // A route this server does not have answers 405, or 404 "no route …" (a missing record says otherwise).
  if (!r.ok && (r.status === 405 || (r.status === 404 && /^no route/i.test(r.error.message)))) missing.add(kind);
  return r;
}

interface NeedsState {
  items: NeedItem[];
  truncated: boolean;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error?: ApiError;
  load: () => Promise<void>;
  retryWake: (w: Wake) => Promise<ApiResult<unknown>>;
  stopWake: (w: Wake, requeue: boolean) => Promise<ApiResult<unknown>>;
  releaseWake: (w: Wake) => Promise<ApiResult<unknown>>;
  dropWake: (w: Wake) => Promise<ApiResult<unknown>>;
  retryTask: (t: Task, assignee?: string) => Promise<ApiResult<unknown>>;
  releaseTask: (t: Task) => Promise<ApiResult<unknown>>;
}

let seq = 0;
export const useNeeds = create<NeedsState>((set, getState) => {
  const after = (r: ApiResult<unknown>) => {
    if (r.ok) void getState().load();
    return r;
  };
  return {
    items: [],
    truncated: false,
    status: 'idle',
    load: async () => {
      const mine = ++seq;
      if (getState().status === 'idle') set({ status: 'loading' });
      const r = await get<{ items: NeedItem[]; truncated: boolean }>('/v1/needs-you');
      if (mine !== seq) return;
      if (r.ok) set({ items: r.data.items, truncated: r.data.truncated, status: 'ready', error: undefined });
      else set({ status: getState().status === 'ready' ? 'ready' : 'error', error: r.error });
    },
    retryWake: async (w) => after(await optionalPost('wake-retry', `/v1/wakes/${enc(w.wake_id)}/retry`)),
    // Stop fails the running wake and kills its runner; requeue is then the retry of that failed wake.
    stopWake: async (w, requeue) => {
      const stopped = await optionalPost('wake-stop', `/v1/wakes/${enc(w.wake_id)}/stop`);
      if (!stopped.ok || !requeue) return after(stopped);
      return after(await optionalPost('wake-retry', `/v1/wakes/${enc(w.wake_id)}/retry`));
    },
    releaseWake: async (w) => after(await optionalPost('wake-release', `/v1/wakes/${enc(w.wake_id)}/release`)),
    dropWake: async (w) => after(await optionalPost('wake-drop', `/v1/wakes/${enc(w.wake_id)}/drop`)),
    retryTask: async (t, assignee) => after(await optionalPost('task-retry', `/v1/rooms/${enc(t.room)}/tasks/${enc(t.task_id)}/retry`, assignee ? { assignee } : {})),
    releaseTask: async (t) => after(await post(`/v1/rooms/${enc(t.room)}/tasks/${enc(t.task_id)}/release`, {})),
  };
});
