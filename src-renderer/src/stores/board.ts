import type { ApiResult } from '../api';
import { client } from '../client';
import type { BodyOf } from '../../../shared/contracts/contract';
import type { contracts } from '../../../shared/contracts/index';
import type { Board, BoardTask, Task, TaskStatus } from '../types';
import { createRoomResource } from './room-resource';

/** A lane's next page (Show more); the first page is the server's default, sized so every lane of a big board shows. */
const LANE_PAGE = 50;

/** What the New task form sends (the contract's body; the store adds the idempotency key). */
export type NewTask = Omit<BodyOf<typeof contracts.tasks.create>, 'idempotency_key'>;

/** `waiting` = todo tasks whose prerequisites are not done yet; `blocked` is the status an agent set. */
export type StatusFilter = '' | TaskStatus | 'waiting';
export interface BoardFilter {
  assignee: string;
  status: StatusFilter;
}
export const NO_FILTER: BoardFilter = { assignee: '', status: '' };

/** What the detail panel edits of a task: part of the update's body. */
export type TaskEdit = Pick<BodyOf<typeof contracts.tasks.update>, 'title' | 'detail' | 'order'>;

interface BoardActions {
  /** Filters belong to one room: another room's board opens unfiltered. */
  filters: Record<string, BoardFilter>;
  setFilter: (roomId: string, f: Partial<BoardFilter>) => void;
  loadMore: (roomId: string, lane: string) => Promise<void>;
  create: (roomId: string, t: NewTask) => Promise<ApiResult<Task>>;
  act: (roomId: string, taskId: string, action: 'cancel' | 'release' | 'archive') => Promise<ApiResult<Task>>;
  /** Gives the task to another agent of the room (a handle or plate). */
  assign: (roomId: string, taskId: string, assignee: string) => Promise<ApiResult<Task>>;
  edit: (roomId: string, taskId: string, e: TaskEdit) => Promise<ApiResult<Task>>;
  /** Moves `taskId` before `beforeId` (or to the end) of its lane by renumbering the lane's order, in one call. */
  reorder: (roomId: string, lane: BoardTask[], taskId: string, beforeId: string | null) => Promise<ApiResult<unknown>>;
}

/** Withdrawn (cancelled) tasks are on the board only when asked for: when the room's filter shows them. */
const wantsCancelled = (f: BoardFilter | undefined) => f?.status === 'cancelled';

/** A lane's (or the done view's) next page appended to the board the room holds. */
function withPage(board: Board, lane: string, page: Board): Board {
  if (lane === 'done') return { ...board, done: [...board.done, ...page.done], done_next_cursor: page.done_next_cursor };
  const next = page.lanes.find((x) => x.assignee === lane);
  if (!next) return board;
  return { ...board, lanes: board.lanes.map((l) => (l.assignee === lane ? { ...l, tasks: [...l.tasks, ...next.tasks], next_cursor: next.next_cursor } : l)) };
}

/** A room's board: the first page of every lane, plus the pages "Show more" added. */
export const useBoard = createRoomResource<Board, BoardActions>({
  name: 'board',
  // The board is paged per lane (docs/tasks.md): the first page of every lane in the compact
  // shape (a response holds far more compact tasks than full records, so no lane is left
  // empty on a big board); the detail panel reads the full record of the task it opens.
  request: (roomId, s) => client.tasks.board({ params: { id: roomId }, query: wantsCancelled(s.filters[roomId]) ? { status: 'cancelled' } : {} }),
  refreshOn: ['board.changed'],
  extend: ({ set, get: getState, update }) => ({
    filters: {},
    setFilter: (roomId, f) => {
      const cur = getState().filters[roomId] ?? NO_FILTER;
      const next = { ...cur, ...f };
      set((s) => ({ filters: { ...s.filters, [roomId]: next } }));
      // A board already loaded is asked again when the filter changes what the server sends.
      if (getState().rooms[roomId] && wantsCancelled(cur) !== wantsCancelled(next)) void getState().load(roomId);
    },
    loadMore: async (roomId, lane) => {
      const b = getState().rooms[roomId]?.data;
      if (!b) return;
      const cursor = lane === 'done' ? b.done_next_cursor : b.lanes.find((l) => l.assignee === lane)?.next_cursor;
      if (!cursor) return;
      const r = await client.tasks.board({ params: { id: roomId }, query: { limit: LANE_PAGE, lane, cursor } });
      if (r.ok) update(roomId, (board) => withPage(board, lane, r.data));
    },
    create: async (roomId, t) => {
      const r = await client.tasks.create({ params: { id: roomId }, body: { ...t, idempotency_key: crypto.randomUUID() } });
      if (r.ok) void getState().load(roomId);
      return r;
    },
    act: async (roomId, taskId, action) => {
      const r = await client.tasks[action]({ params: { id: roomId, taskId } });
      if (r.ok) void getState().load(roomId);
      return r;
    },
    assign: async (roomId, taskId, assignee) => {
      const r = await client.tasks.assign({ params: { id: roomId, taskId }, body: { assignee } });
      if (r.ok) void getState().load(roomId);
      return r;
    },
    edit: async (roomId, taskId, e) => {
      const r = await client.tasks.update({ params: { id: roomId, taskId }, body: e });
      if (r.ok) void getState().load(roomId);
      return r;
    },
    reorder: async (roomId, lane, taskId, beforeId) => {
      const moving = lane.find((t) => t.task_id === taskId);
      if (!moving) return { ok: true, status: 200, data: null };
      const rest = lane.filter((t) => t.task_id !== taskId);
      const at = beforeId ? rest.findIndex((t) => t.task_id === beforeId) : rest.length;
      const seq = [...rest.slice(0, at < 0 ? rest.length : at), moving, ...rest.slice(at < 0 ? rest.length : at)];
      // Orders 10, 20, 30…, written by the server in one transaction (all or none); nothing to send when every number holds.
      if (seq.every((t, i) => t.order === (i + 1) * 10)) {
        void getState().load(roomId);
        return { ok: true, status: 200, data: null };
      }
      const r = await client.tasks.reorder({ params: { id: roomId, assignee: moving.assignee }, body: { task_ids: seq.map((t) => t.task_id) } });
      void getState().load(roomId);
      return r;
    },
  }),
});

/** Every task on a board, lanes and done view together. */
export function allTasks(b: Pick<Board, 'lanes' | 'done'> | undefined): BoardTask[] {
  if (!b) return [];
  const seen = new Set<string>();
  const out: BoardTask[] = [];
  for (const t of [...b.lanes.flatMap((l) => l.tasks), ...b.done]) {
    if (!seen.has(t.task_id)) {
      seen.add(t.task_id);
      out.push(t);
    }
  }
  return out;
}

/** Waits on prerequisites: a todo task with dependencies not done yet (not the `blocked` status). */
export function waitsOn(t: BoardTask): string[] {
  return t.status === 'todo' ? (t.blocked_by ?? []) : [];
}

/**
 * The board's status filter: `waiting` keeps todo tasks with prerequisites not done yet; `todo`
 * keeps only the todo tasks that can start now; any other status keeps that status.
 */
export function matchesStatus(t: BoardTask, status: StatusFilter): boolean {
  if (!status) return true;
  if (status === 'waiting') return waitsOn(t).length > 0;
  return t.status === status && !(status === 'todo' && waitsOn(t).length > 0);
}
