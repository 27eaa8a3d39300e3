import { create } from 'zustand';
import { enc, get, post, type ApiError, type ApiResult } from '../api';
import type { Board, Task, TaskStatus } from '../types';

/** Tasks per lane the board view loads (full records: the server sends at most 200 per response). */
const LANE_PAGE = 50;

export interface RoomBoard {
  board?: Board;
  status: 'loading' | 'ready' | 'error';
  error?: ApiError;
  /** When the board view asks for withdrawn tasks the server adds them only on request. */
  includeCancelled: boolean;
}

export interface NewTask {
  title: string;
  definition_of_done: string;
  assignee: string;
  detail?: string;
  depends_on?: string[];
}

interface BoardState {
  rooms: Record<string, RoomBoard>;
  filterAssignee: string;
  filterStatus: '' | TaskStatus;
  setFilter: (f: { assignee?: string; status?: '' | TaskStatus }) => void;
  load: (roomId: string) => Promise<void>;
  create: (roomId: string, t: NewTask) => Promise<ApiResult<Task>>;
  act: (roomId: string, taskId: string, action: 'assign' | 'cancel' | 'release' | 'archive', body?: unknown) => Promise<ApiResult<unknown>>;
}

export const useBoard = create<BoardState>((set, getState) => ({
  rooms: {},
  filterAssignee: '',
  filterStatus: '',
  setFilter: (f) => {
    const prev = getState().filterStatus;
    set({ filterAssignee: f.assignee ?? getState().filterAssignee, filterStatus: f.status ?? prev });
    const wantCancelled = (f.status ?? prev) === 'cancelled';
    for (const [roomId, rb] of Object.entries(getState().rooms)) {
      if (rb.includeCancelled !== wantCancelled) {
        set((s) => ({ rooms: { ...s.rooms, [roomId]: { ...s.rooms[roomId]!, includeCancelled: wantCancelled } } }));
        void getState().load(roomId);
      }
    }
  },
  load: async (roomId) => {
    const prev = getState().rooms[roomId];
    const includeCancelled = prev?.includeCancelled ?? getState().filterStatus === 'cancelled';
    if (!prev) set((s) => ({ rooms: { ...s.rooms, [roomId]: { status: 'loading', includeCancelled } } }));
    // The board is paged per lane (docs/tasks.md); this view shows the first page of each lane, full records.
    const r = await get<Board>(`/v1/rooms/${enc(roomId)}/board?detail=full&limit=${LANE_PAGE}${includeCancelled ? '&status=cancelled' : ''}`);
    set((s) => {
      const cur = s.rooms[roomId] ?? { status: 'loading', includeCancelled };
      return {
        rooms: {
          ...s.rooms,
          [roomId]: r.ok ? { ...cur, status: 'ready', board: r.data, error: undefined } : { ...cur, status: cur.board ? 'ready' : 'error', error: r.error },
        },
      };
    });
  },
  create: async (roomId, t) => {
    const r = await post<Task>(`/v1/rooms/${enc(roomId)}/tasks`, { ...t, idempotency_key: crypto.randomUUID() });
    if (r.ok) void getState().load(roomId);
    return r;
  },
  act: async (roomId, taskId, action, body = {}) => {
    const r = await post(`/v1/rooms/${enc(roomId)}/tasks/${enc(taskId)}/${action}`, body);
    if (r.ok) void getState().load(roomId);
    return r;
  },
}));

/** Every task on a board, lanes and done view together. */
export function allTasks(b: Board | undefined): Task[] {
  if (!b) return [];
  const seen = new Set<string>();
  const out: Task[] = [];
  for (const t of [...b.lanes.flatMap((l) => l.tasks), ...b.done]) {
    if (!seen.has(t.task_id)) {
      seen.add(t.task_id);
      out.push(t);
    }
  }
  return out;
}

/**
 * Would giving `taskId` these dependencies close a cycle? True when any chosen dependency
 * already depends (transitively) on `taskId`, or names the task itself.
 */
export function wouldCycle(tasks: Pick<Task, 'task_id' | 'depends_on'>[], taskId: string, deps: string[]): boolean {
  const edges = new Map(tasks.map((t) => [t.task_id, t.depends_on ?? []]));
  edges.set(taskId, deps);
  const seen = new Set<string>();
  const stack = [...deps];
  while (stack.length) {
    const id = stack.pop()!;
    if (id === taskId) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(edges.get(id) ?? []));
  }
  return false;
}
