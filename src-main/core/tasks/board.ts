import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { invalid } from '../errors/app-error.js';
import { agentHandle, getAgentByPlate } from '../agents/store.js';
import { agentPlatesOfRoom, getRoom } from '../rooms/store.js';
import { decodeCursor, encodeCursor, START_CURSOR } from '../util/cursor.js';
import { isStale, mergedOf, toRecord, type TaskRecord, type TaskRow } from './store.js';
import { TASK_STATUSES, type TaskStatus } from './transitions.js';
import { BOARD_LIMIT_MAX } from '../../../shared/schemas/tasks.js';
import type { z } from 'zod';
import type { boardOutput, taskSummary } from '../../../shared/schemas/tasks.js';

/** The compact task of a board page (shared/schemas/tasks.ts `taskSummary`), not a second copy. */
export type TaskSummary = z.output<typeof taskSummary>;

type BoardRecord = z.output<typeof boardOutput>;

/**
 * One lane of a board page (shared/schemas/tasks.ts `boardOutput`) over either task shape: `total`
 * counts the lane's tasks matching the filter across all pages; `next_cursor`, passed with `lane`,
 * reads its next page (null at its end).
 */
export type BoardLane<T> = Omit<BoardRecord['lanes'][number], 'tasks'> & { tasks: T[] };

/** A board page (shared/schemas/tasks.ts `boardOutput`) over either task shape. */
export type BoardPage<T = TaskSummary | TaskRecord> = Omit<BoardRecord, 'lanes' | 'done'> & { lanes: Array<BoardLane<T>>; done: T[] };

/** docs/contract.md "Limits": a lane page holds at most this many tasks (the board's query states it, shared/schemas/tasks.ts). */
export { BOARD_LIMIT_MAX };
/** /v1 default per lane: 10 per lane keeps a 50-lane board's default page within the budget below. */
export const BOARD_LIMIT_HTTP = 10;
/**
 * One response never carries more than this many tasks (full records: fewer), whatever `limit`
 * asks: lanes past the budget come back with their counts and a cursor. It bounds the time one
 * read holds the event loop: 1,000 compact tasks cost about 17 ms of synchronous work alone
 * (SQL and shaping) and held the loop for 58 to 81 ms on the loaded 2-core machine; 500 cost
 * about a third of that (docs/performance.md, "Paged reads").
 */
export const BOARD_TASK_BUDGET = 500;
export const BOARD_FULL_BUDGET = 200;

export interface BoardQuery {
  /** A resolved plate (the caller resolved a handle). */
  plate?: string;
  statuses?: ReadonlyArray<TaskStatus | 'archived'>;
  /** Tasks per lane; a number, or per lane (the MCP default gives the caller's own lane more). */
  limit: number | ((plate: string | 'done', lanes: number) => number);
  /** Page one lane only: an assignee plate, or 'done'. */
  lane?: string;
  cursor?: string;
  detail?: 'summary' | 'full';
  /** The handle of a live lease holder (an MCP session), when the caller knows the sessions. */
  instanceHandle?: (instanceId: string) => string | undefined;
}

const OPEN_STATUSES: readonly TaskStatus[] = ['todo', 'doing', 'blocked', 'failed'];

type LaneKey = [number, number, number, string];
type DoneKey = [number, string];
const isLaneKey = (k: unknown[]): k is LaneKey | [] =>
  k.length === 0 || (k.length === 4 && (k[0] === 0 || k[0] === 1) && Number.isSafeInteger(k[1]) && Number.isSafeInteger(k[2]) && typeof k[3] === 'string');
const isDoneKey = (k: unknown[]): k is DoneKey | [] => k.length === 0 || (k.length === 2 && Number.isSafeInteger(k[0]) && typeof k[1] === 'string');

const laneKey = (r: TaskRow): LaneKey => [r.sort_order === null ? 1 : 0, r.sort_order ?? 0, r.created_at, r.id];
const doneKey = (r: TaskRow): DoneKey => [r.completed_at ?? 0, r.id];

/** archived_at filter: 0 hides archived tasks (default), 1 shows all, 2 shows only archived ones. */
function archivedMode(asked: ReadonlySet<string> | undefined): 0 | 1 | 2 {
  if (!asked?.has('archived')) return 0;
  return asked.size === 1 ? 2 : 1;
}

function statusesOf(asked: ReadonlySet<string> | undefined): TaskStatus[] {
  if (!asked) return [...OPEN_STATUSES, 'done'];
  const named = TASK_STATUSES.filter((s) => asked.has(s));
  return named.length ? named : [...TASK_STATUSES];
}

const ARCHIVED_SQL = '(@arch = 1 OR (@arch = 0 AND archived_at IS NULL) OR (@arch = 2 AND archived_at IS NOT NULL))';

/**
 * The columns a compact task needs (toSummary, isStale, the cursor keys): reading only these
 * halves a page's SQL cost (detail, definition_of_done and the notes stay on disk).
 */
const SUMMARY_COLUMNS =
  'id, room_id, title, assignee, sort_order, status, consent_state, lease_instance_id, lease_renewed_at, lease_gone_at, completed_at, archived_at, created_at, updated_at, merged_commit, merged_at, merged_by, worktree';

function laneRows(db: Db, roomId: string, plate: string, statuses: string, arch: number, after: LaneKey | undefined, limit: number, cols: string): TaskRow[] {
  if (limit <= 0) return [];
  const k = after ?? [-1, 0, 0, ''];
  return stmt(
    db,
    `SELECT ${cols} FROM tasks WHERE room_id = @room AND assignee = @plate AND status IN (SELECT value FROM json_each(@statuses)) AND ${ARCHIVED_SQL}
       AND (sort_order IS NULL, coalesce(sort_order, 0), created_at, id) > (@k0, @k1, @k2, @k3)
     ORDER BY sort_order IS NULL, sort_order, created_at, id LIMIT @limit`,
  ).all({ arch, room: roomId, plate, statuses, k0: k[0], k1: k[1], k2: k[2], k3: k[3], limit }) as TaskRow[];
}

function doneRows(db: Db, roomId: string, plate: string | undefined, arch: number, before: DoneKey | undefined, limit: number, cols: string): TaskRow[] {
  if (limit <= 0) return [];
  const k = before ?? [Number.MAX_SAFE_INTEGER, ''];
  return stmt(
    db,
    `SELECT ${cols} FROM tasks WHERE room_id = @room AND status = 'done' AND (@plate IS NULL OR assignee = @plate) AND ${ARCHIVED_SQL}
       AND (completed_at, id) < (@k0, @k1)
     ORDER BY completed_at DESC, id DESC LIMIT @limit`,
  ).all({ arch, room: roomId, plate: plate ?? null, k0: k[0], k1: before ? k[1] : '\uffff', limit }) as TaskRow[];
}

function laneCounts(db: Db, roomId: string, statuses: string, arch: number): Map<string, number> {
  const rows = stmt(
    db,
    `SELECT assignee, count(*) AS n FROM tasks WHERE room_id = @room AND status IN (SELECT value FROM json_each(@statuses)) AND ${ARCHIVED_SQL}
     GROUP BY assignee`,
  ).all({ arch, room: roomId, statuses }) as Array<{ assignee: string; n: number }>;
  return new Map(rows.map((r) => [r.assignee, r.n]));
}

function doneCount(db: Db, roomId: string, plate: string | undefined, arch: number): number {
  return (
    stmt(db, `SELECT count(*) AS n FROM tasks WHERE room_id = @room AND status = 'done' AND (@plate IS NULL OR assignee = @plate) AND ${ARCHIVED_SQL}`).get({
      arch,
      room: roomId,
      plate: plate ?? null,
    }) as { n: number }
  ).n;
}

/**
 * Counts are the part of a board page that grows with the board; they are kept per room and
 * filter until the room's context_version moves (every change of a task's status, assignee or
 * archiving bumps it; a lease renewal changes no count).
 */
const countCache = new WeakMap<Db, Map<string, { version: number; lanes: Map<string, number>; done: number }>>();
function boardCounts(db: Db, roomId: string, version: number, open: string, arch: number, plate: string | undefined, wantDone: boolean) {
  let m = countCache.get(db);
  if (!m) countCache.set(db, (m = new Map()));
  const key = `${roomId}\u0000${open}\u0000${arch}\u0000${plate ?? ''}\u0000${wantDone ? 1 : 0}`;
  const hit = m.get(key);
  if (hit && hit.version === version) return hit;
  const fresh = { version, lanes: laneCounts(db, roomId, open, arch), done: wantDone ? doneCount(db, roomId, plate, arch) : 0 };
  if (m.size >= 1000) m.clear();
  m.set(key, fresh);
  return fresh;
}

/** depends_on and the open prerequisites of just the tasks on this page. */
function depsOfPage(db: Db, ids: string[]): { deps: Map<string, string[]>; open: Map<string, string[]> } {
  const deps = new Map<string, string[]>();
  const open = new Map<string, string[]>();
  if (!ids.length) return { deps, open };
  const rows = stmt(
    db,
    `SELECT d.task_id, d.depends_on, p.status = 'done' AS done FROM task_deps d JOIN tasks p ON p.id = d.depends_on
     WHERE d.task_id IN (SELECT value FROM json_each(?)) ORDER BY d.rowid`,
  ).all(JSON.stringify(ids)) as Array<{ task_id: string; depends_on: string; done: number }>;
  for (const e of rows) {
    (deps.get(e.task_id) ?? deps.set(e.task_id, []).get(e.task_id)!).push(e.depends_on);
    if (!e.done) (open.get(e.task_id) ?? open.set(e.task_id, []).get(e.task_id)!).push(e.depends_on);
  }
  return { deps, open };
}

function handleOf(db: Db, plate: string, cache: Map<string, string>): string {
  let h = cache.get(plate);
  if (h === undefined) {
    const a = getAgentByPlate(db, plate);
    h = a ? agentHandle(a) : '';
    cache.set(plate, h);
  }
  return h;
}

export function toSummary(
  r: TaskRow,
  dependsOn: string[],
  blockedBy: string[],
  handle: string,
  now: number,
  instanceHandle?: (id: string) => string | undefined,
): TaskSummary {
  return {
    task_id: r.id,
    room: r.room_id,
    title: r.title,
    assignee: r.assignee,
    assignee_handle: handle,
    status: r.status,
    order: r.sort_order,
    depends_on: dependsOn,
    blocked_by: blockedBy,
    lease: r.lease_instance_id === null ? null : { instance_id: r.lease_instance_id, handle: instanceHandle?.(r.lease_instance_id) ?? null, stale: isStale(r, now) },
    consent_state: r.consent_state,
    updated_at: new Date(r.updated_at).toISOString(),
    // A card says when its branch landed (docs/review.md).
    merged: mergedOf(r),
  };
}

/**
 * The board, one page per lane: one lane per agent of the room (in join order; then any other
 * assignee with matching tasks), tasks by order then creation; finished tasks in the done view,
 * newest first. Cancelled and archived tasks appear only when `statuses` asks for them. Only the
 * page is read and shaped (plus one grouped count), so the cost follows the page, not the board.
 */
export function readBoardPage(db: Db, roomId: string, q: BoardQuery): BoardPage {
  const room = getRoom(db, roomId)!;
  const asked = q.statuses?.length ? new Set<string>(q.statuses) : undefined;
  const arch = archivedMode(asked);
  const statuses = statusesOf(asked);
  const open = JSON.stringify(statuses.filter((s) => s !== 'done'));
  const wantDone = statuses.includes('done');
  const handles = new Map<string, string>();
  const now = Date.now();

  let laneAfter: LaneKey | undefined;
  let doneBefore: DoneKey | undefined;
  if (q.cursor !== undefined) {
    if (q.lane === undefined) throw invalid('cursor pages one lane: pass lane (an assignee plate, or "done") with it', 'cursor_needs_lane');
    if (q.lane === 'done') {
      const k = decodeCursor(q.cursor, isDoneKey);
      doneBefore = k.length ? (k as DoneKey) : undefined;
    } else {
      const k = decodeCursor(q.cursor, isLaneKey);
      laneAfter = k.length ? (k as LaneKey) : undefined;
    }
  }

  // Which lanes: members in join order, then any other assignee holding matching tasks.
  const cached = boardCounts(db, roomId, room.context_version, open, arch, q.plate, wantDone);
  const counts = cached.lanes;
  let plates: string[];
  if (q.lane !== undefined) {
    plates = q.lane === 'done' ? [] : [q.lane];
  } else {
    const members = agentPlatesOfRoom(db, roomId);
    const set = new Set(members);
    plates = [...members, ...[...counts.keys()].filter((p) => !set.has(p)).sort()];
  }
  if (q.plate !== undefined) plates = plates.filter((p) => p === q.plate);

  const limitOf = (lane: string) => Math.min(BOARD_LIMIT_MAX, Math.max(0, typeof q.limit === 'number' ? q.limit : q.limit(lane, plates.length)));
  let budget = q.detail === 'full' ? BOARD_FULL_BUDGET : BOARD_TASK_BUDGET;
  const cols = q.detail === 'full' ? '*' : SUMMARY_COLUMNS;
  const pageRows: TaskRow[] = [];
  const lanes = plates.map((plate) => {
    const total = counts.get(plate) ?? 0;
    const want = Math.min(limitOf(plate), budget);
    // A first page knows from the count whether more follows; a later one reads one row more.
    const rows = laneRows(db, roomId, plate, open, arch, laneAfter, laneAfter ? want + 1 : want, cols);
    const page = rows.slice(0, want);
    budget -= page.length;
    pageRows.push(...page);
    const more = laneAfter ? rows.length > page.length : total > page.length;
    const next = more ? (page.length ? encodeCursor(laneKey(page[page.length - 1]!)) : laneAfter ? encodeCursor(laneAfter) : START_CURSOR) : null;
    return { plate, total, page, next };
  });

  const showDone = wantDone && (q.lane === undefined || q.lane === 'done');
  const doneTotal = cached.done;
  const doneWant = showDone ? Math.min(limitOf('done'), budget) : 0;
  const doneFetched = showDone ? doneRows(db, roomId, q.plate, arch, doneBefore, doneBefore ? doneWant + 1 : doneWant, cols) : [];
  const donePage = doneFetched.slice(0, doneWant);
  const doneMore = doneBefore ? doneFetched.length > donePage.length : doneTotal > donePage.length;
  const doneNext = doneMore ? (donePage.length ? encodeCursor(doneKey(donePage[donePage.length - 1]!)) : doneBefore ? encodeCursor(doneBefore) : START_CURSOR) : null;
  pageRows.push(...donePage);

  const { deps, open: openDeps } = depsOfPage(db, pageRows.map((r) => r.id));
  const shape = (r: TaskRow): TaskSummary | TaskRecord =>
    q.detail === 'full'
      ? toRecord(db, r, deps.get(r.id) ?? [], openDeps.get(r.id) ?? [], handles, now)
      : toSummary(r, deps.get(r.id) ?? [], openDeps.get(r.id) ?? [], handleOf(db, r.assignee, handles), now, q.instanceHandle);

  return {
    lanes: lanes.map((l) => ({ assignee: l.plate, handle: handleOf(db, l.plate, handles), tasks: l.page.map(shape), total: l.total, next_cursor: l.next })),
    done: donePage.map(shape),
    done_total: doneTotal,
    done_next_cursor: showDone ? doneNext : null,
    context_version: room.context_version,
  };
}

/**
 * The room's unarchived tasks counted per status (the UI's status columns show totals, not the
 * loaded page). One grouped read of the tasks_count index.
 */
export function statusTotals(db: Db, roomId: string): Record<TaskStatus, number> {
  const out = Object.fromEntries(TASK_STATUSES.map((s) => [s, 0])) as Record<TaskStatus, number>;
  const rows = stmt(db, 'SELECT status, COUNT(*) AS n FROM tasks WHERE room_id = ? AND archived_at IS NULL GROUP BY status').all(roomId) as Array<{ status: TaskStatus; n: number }>;
  for (const r of rows) out[r.status] = r.n;
  return out;
}
