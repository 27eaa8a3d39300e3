import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent } from 'react';
import { allTasks, matchesStatus, NO_FILTER, useBoard, waitsOn, type StatusFilter } from '../stores/board';
import { phaseOf } from '../stores/room-resource';
import { useMembers } from '../stores/rooms';
import type { Room, BoardTask } from '../types';
import { describeError } from '../api';
import { VirtualList } from './VirtualList';
import { Loading, ErrorNote, Empty } from './States';
import { TaskCard, type CardLinks } from './TaskCard';
import { ReassignDialog, TaskDetail } from './TaskDetail';
import { actionOf } from './allowed';
import { Dialog } from './Dialog';
import { href, navigate } from '../router';

/** The board groups by status (the default) or by assignee; the choice is kept per browser. */
type Grouping = 'status' | 'assignee';
const GROUP_KEY = 'ar.board.group';
const readGrouping = (): Grouping => (localStorage.getItem(GROUP_KEY) === 'assignee' ? 'assignee' : 'status');

/** Status columns: failed tasks sit with the blocked ones (both wait on a person). */
const STATUS_COLUMNS: Array<{ key: string; title: string; has: (s: string) => boolean; total: (t: Partial<Record<string, number>>) => number }> = [
  { key: 'todo', title: 'To do', has: (s) => s === 'todo', total: (t) => t.todo ?? 0 },
  { key: 'doing', title: 'Doing', has: (s) => s === 'doing', total: (t) => t.doing ?? 0 },
  { key: 'blocked', title: 'Blocked', has: (s) => s === 'blocked' || s === 'failed', total: (t) => (t.blocked ?? 0) + (t.failed ?? 0) },
  { key: '__done__', title: 'Done', has: (s) => s === 'done', total: (t) => t.done ?? 0 },
];


function CreateTaskDialog({ room, tasks, onClose }: { room: Room; tasks: BoardTask[]; onClose: () => void }) {
  const members = useMembers((s) => s.rooms[room.room_id]?.data);
  const create = useBoard((s) => s.create);
  const agents = (members?.agents ?? []).filter((a) => !a.revoked);
  const [title, setTitle] = useState('');
  const [dod, setDod] = useState('');
  const [detail, setDetail] = useState('');
  const [assignee, setAssignee] = useState(agents[0]?.plate ?? '');
  const [deps, setDeps] = useState<string[]>([]);
  const [q, setQ] = useState('');
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  const candidates = useMemo(() => {
    const needle = q.toLowerCase();
    return tasks.filter((t) => t.status !== 'cancelled' && !deps.includes(t.task_id) && (!needle || t.title.toLowerCase().includes(needle))).slice(0, 30);
  }, [tasks, q, deps]);
  const titleOf = (id: string) => tasks.find((t) => t.task_id === id)?.title ?? id;

  function addDep(id: string) {
    // A new task has no dependents yet, so no choice closes a cycle (the server checks edits: docs/tasks.md).
    setErr(undefined);
    setDeps([...deps, id]);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!title.trim() || !dod.trim() || !assignee) return setErr('Title, definition of done and assignee are required.');
    setBusy(true);
    const r = await create(room.room_id, { title: title.trim(), definition_of_done: dod.trim(), assignee, ...(detail.trim() ? { detail: detail.trim() } : {}), ...(deps.length ? { depends_on: deps } : {}) });
    setBusy(false);
    if (r.ok) onClose();
    else setErr(describeError(r.error));
  }

  return (
    <Dialog title="New task" onClose={onClose} wide>
      <form className="stack" onSubmit={submit}>
        <label htmlFor="t-title">Title</label>
        <input id="t-title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={300} autoFocus />
        <label htmlFor="t-dod">Definition of done</label>
        <textarea id="t-dod" value={dod} onChange={(e) => setDod(e.target.value)} required rows={2} />
        <label htmlFor="t-detail">Detail (optional)</label>
        <textarea id="t-detail" value={detail} onChange={(e) => setDetail(e.target.value)} rows={2} />
        <label htmlFor="t-assignee">Assignee</label>
        {agents.length ? (
          <select id="t-assignee" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
            {agents.map((a) => (
              <option key={a.plate} value={a.plate}>
                {a.handle} — {a.name}, agent of {a.owner.name}
              </option>
            ))}
          </select>
        ) : (
          <p className="muted">No agents in this room yet: add one on the Members tab.</p>
        )}
        <fieldset>
          <legend>Depends on</legend>
          {deps.length === 0 && <p className="muted">No prerequisites: the task is claimable at once.</p>}
          <ul className="chips" aria-label="Chosen dependencies">
            {deps.map((id) => (
              <li key={id}>
                {titleOf(id)}{' '}
                <button type="button" className="ghost" aria-label={`Remove dependency ${titleOf(id)}`} onClick={() => setDeps(deps.filter((d) => d !== id))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
          <label htmlFor="t-dep-q">Find a task to depend on</label>
          <input id="t-dep-q" value={q} onChange={(e) => setQ(e.target.value)} placeholder="Filter by title" />
          <ul className="dep-picker" aria-label="Tasks to depend on">
            {candidates.map((t) => (
              <li key={t.task_id}>
                <button type="button" className="link" onClick={() => addDep(t.task_id)}>
                  + {t.title} <span className="muted">({t.status}, {t.assignee_handle})</span>
                </button>
              </li>
            ))}
          </ul>
        </fieldset>
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" disabled={busy || !agents.length}>
            Create task
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const STATUS_OPTIONS: Array<[StatusFilter, string]> = [
  ['', 'Any status'],
  ['todo', 'todo'],
  ['waiting', 'waiting on prerequisites'],
  ['doing', 'doing'],
  ['blocked', 'blocked (status)'],
  ['failed', 'failed'],
  ['done', 'done'],
  ['cancelled', 'cancelled'],
];
const DONE = '__done__';

interface LaneView {
  key: string;
  title: string;
  tasks: BoardTask[];
  more: boolean;
  /** The count in the heading: the server's total when known, else the tasks shown. */
  count: number;
}

/**
 * `newTask`: the route is `#/rooms/:id/board/new` (`c` pressed in another view of the room): the New task form opens.
 * `openTaskView`: the open task's tab (`changes`, from `#/rooms/:id/tasks/:taskId/changes`).
 */
export function BoardView({ room, openTaskId, openTaskView, newTask }: { room: Room; openTaskId?: string; openTaskView?: string; newTask?: boolean }) {
  const roomId = room.room_id;
  const rb = useBoard((s) => s.rooms[roomId]);
  const filter = useBoard((s) => s.filters[roomId]) ?? NO_FILTER;
  const { setFilter, load, loadMore, reorder } = useBoard.getState();
  const members = useMembers((s) => s.rooms[roomId]?.data);
  const [creating, setCreating] = useState(!!newTask);
  useEffect(() => {
    if (!newTask) return;
    setCreating(true);
    // The form is open; the address becomes the board's again (Back does not reopen it).
    window.location.replace(href('rooms', roomId, 'board'));
  }, [newTask, roomId]);
  // The open task is the URL's (#/rooms/:id/tasks/:taskId): reload, back and a pasted link land on it.
  const openId = openTaskId ?? null;
  const setOpenId = useCallback((id: string | null) => (id ? navigate('rooms', roomId, 'tasks', id) : navigate('rooms', roomId, 'board')), [roomId]);
  const [grouping, setGroupingState] = useState<Grouping>(readGrouping);
  const setGrouping = (g: Grouping) => {
    localStorage.setItem(GROUP_KEY, g);
    setGroupingState(g);
  };
  const byStatus = grouping === 'status';
  // c: a new task (when nothing else has the keyboard).
  useEffect(() => {
    const onKeyDown = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'c' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.closest('dialog'))) return;
      e.preventDefault();
      setCreating(true);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
  const [reassign, setReassign] = useState<{ task: BoardTask; to?: string } | null>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [reveal, setReveal] = useState<{ lane: string; key: string } | null>(null);
  const [note, setNote] = useState<string>();
  const dragging = useRef<BoardTask | null>(null);
  const [dropLane, setDropLane] = useState<string | null>(null);
  const lanesRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void load(roomId);
  }, [roomId, load]);

  const board = rb?.data;
  const tasks = useMemo(() => allTasks(board), [board]);
  const titles = useMemo(() => new Map(tasks.map((t) => [t.task_id, t.title])), [tasks]);
  const plates = useMemo(() => {
    const m = new Map<string, string>();
    for (const l of board?.lanes ?? []) if (l.handle) m.set(l.assignee, l.handle);
    for (const a of members?.agents ?? []) m.set(a.plate, a.handle);
    return m;
  }, [board, members]);
  const links = useMemo(() => {
    // Who waits on whom, in one pass (a board may hold a thousand tasks).
    const holds = new Map<string, string[]>();
    for (const t of tasks) {
      if (t.status === 'done' || t.status === 'cancelled') continue;
      for (const d of t.depends_on ?? []) (holds.get(d) ?? holds.set(d, []).get(d)!).push(t.title);
    }
    const m = new Map<string, CardLinks>();
    for (const t of tasks) m.set(t.task_id, { waits: waitsOn(t).map((id) => titles.get(id) ?? 'a task'), holds: holds.get(t.task_id) ?? [] });
    return m;
  }, [tasks, titles]);
  const keep = useCallback(
    (t: BoardTask) => matchesStatus(t, filter.status),
    [filter.status],
  );
  const lanes = useMemo<LaneView[]>(() => {
    if (!board) return [];
    const filtered = !!(filter.assignee || filter.status);
    if (byStatus) {
      const totals = board.status_totals;
      const open = board.lanes.filter((l) => !filter.assignee || l.assignee === filter.assignee);
      const openTasks = open.flatMap((l) => l.tasks).filter(keep);
      const openMore = open.some((l) => !!l.next_cursor);
      const cols = STATUS_COLUMNS.map((c) => {
        const isDone = c.key === DONE;
        const tasks = isDone ? board.done.filter((t) => (!filter.assignee || t.assignee === filter.assignee) && keep(t)) : openTasks.filter((t) => c.has(t.status));
        const count = totals && !filtered ? c.total(totals) : tasks.length;
        // With totals known, a column whose tasks are all here offers no "Show more".
        const more = isDone ? !!board.done_next_cursor : openMore && (!totals || filtered || count > tasks.length);
        return { key: c.key, title: c.title, tasks, more, count };
      });
      if (filter.status === 'cancelled') cols.push({ key: 'cancelled', title: 'Cancelled', tasks: openTasks.filter((t) => t.status === 'cancelled'), more: false, count: totals?.cancelled ?? 0 });
      // A status filter shows the one column that can hold that status.
      const want = filter.status === 'waiting' ? 'todo' : filter.status;
      return want ? cols.filter((c) => (c.key === 'cancelled' ? want === 'cancelled' : !!STATUS_COLUMNS.find((x) => x.key === c.key)?.has(want))) : cols;
    }
    const out: LaneView[] = board.lanes
      .filter((l) => !filter.assignee || l.assignee === filter.assignee)
      .map((l) => {
        const tasks = l.tasks.filter(keep);
        return { key: l.assignee, title: l.handle || plates.get(l.assignee) || '@agent', tasks, more: !!l.next_cursor, count: filtered || l.total === undefined ? tasks.length : l.total };
      });
    if (!filter.status || filter.status === 'done') {
      const tasks = board.done.filter((t) => (!filter.assignee || t.assignee === filter.assignee) && keep(t));
      out.push({ key: DONE, title: 'Done', tasks, more: !!board.done_next_cursor, count: filtered || board.done_total === undefined ? tasks.length : board.done_total });
    }
    return out;
  }, [board, filter, keep, plates, byStatus]);

  // One tab stop for all cards: the focused one (or the first).
  const firstId = lanes.find((l) => l.tasks.length)?.tasks[0]?.task_id ?? null;
  const current = focusId && tasks.some((t) => t.task_id === focusId) ? focusId : firstId;
  const focusCard = useCallback((laneKey: string, id: string) => {
    setFocusId(id);
    setReveal({ lane: laneKey, key: id });
  }, []);
  useEffect(() => {
    if (!reveal) return;
    const el = lanesRef.current?.querySelector<HTMLElement>(`article.card[data-task="${CSS.escape(reveal.key)}"]`);
    el?.focus();
  }, [reveal]);

  // The room-wide right, as the board says it (tasks/rules.ts BOARD_TABLE), shown while a task could be reassigned.
  const mayReassignHere = rb?.data && tasks.some((t) => t.status !== 'done' && t.status !== 'cancelled') ? actionOf(rb.data, 'reassign') : null;

  function laneOf(t: BoardTask): string {
    if (t.status === 'done') return DONE;
    if (byStatus) return t.status === 'failed' ? 'blocked' : t.status;
    return t.assignee;
  }

  const onKey = useCallback(
    (e: KeyboardEvent, t: BoardTask) => {
      const li = lanes.findIndex((l) => l.key === laneOf(t));
      const lane = lanes[li];
      if (!lane) return;
      const i = lane.tasks.findIndex((x) => x.task_id === t.task_id);
      const go = (l: LaneView | undefined, idx: number) => {
        if (!l || !l.tasks.length) return;
        const x = l.tasks[Math.max(0, Math.min(idx, l.tasks.length - 1))]!;
        focusCard(l.key, x.task_id);
      };
      const nextLane = (dir: 1 | -1) => {
        for (let j = li + dir; j >= 0 && j < lanes.length; j += dir) if (lanes[j]!.tasks.length) return lanes[j];
        return undefined;
      };
      // Alt+Up/Down moves the card within its lane: the keyboard's drag to reorder.
      if (e.altKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown') && lane.key !== DONE) {
        e.preventDefault();
        if (byStatus) return setNote('Group by assignee to reorder: the order is kept per assignee.');
        const allowed = actionOf(t, 'edit');
        if (!allowed?.ok) return setNote(allowed ? allowed.reason : 'A finished task keeps its place.');
        if (filter.status) return setNote('Clear the status filter to reorder: hidden tasks share the lane.');
        const before = e.key === 'ArrowUp' ? lane.tasks[i - 1]?.task_id : lane.tasks[i + 2]?.task_id ?? null;
        if (before === undefined || (e.key === 'ArrowDown' && i === lane.tasks.length - 1)) return;
        void reorder(roomId, lane.tasks, t.task_id, before).then((r) => {
          setNote(r.ok ? undefined : describeError(r.error));
          setReveal({ lane: lane.key, key: t.task_id });
        });
        return;
      }
      switch (e.key) {
        case 'ArrowDown':
        case 'j':
          go(lane, i + 1);
          break;
        case 'ArrowUp':
        case 'k':
          go(lane, i - 1);
          break;
        case 'ArrowRight':
          go(nextLane(1), i);
          break;
        case 'ArrowLeft':
          go(nextLane(-1), i);
          break;
        case 'Home':
          go(lane, 0);
          break;
        case 'End':
          go(lane, lane.tasks.length - 1);
          break;
        case 'Enter':
        case ' ':
          setOpenId(t.task_id);
          break;
        case 'r':
        case 'R': {
          const a = actionOf(t, 'reassign');
          if (a?.ok) setReassign({ task: t });
          else setNote(a ? a.reason : 'A finished task cannot be reassigned.');
          break;
        }
        default:
          return;
      }
      e.preventDefault();
    },
    [lanes, focusCard, filter.status, reorder, roomId, byStatus, setOpenId],
  );

  const onDragStart = useCallback((e: DragEvent, t: BoardTask) => {
    dragging.current = t;
    e.dataTransfer.effectAllowed = 'move';
    e.dataTransfer.setData('text/plain', t.title);
  }, []);

  function dropAllowed(laneKey: string, t = dragging.current): boolean {
    if (!t || laneKey === DONE || byStatus) return false;
    if (laneKey !== t.assignee) return !!actionOf(t, 'reassign')?.ok;
    return !filter.status; // reordering a filtered lane would interleave with hidden tasks
  }

  async function onDrop(e: DragEvent, lane: LaneView) {
    e.preventDefault();
    setDropLane(null);
    const t = dragging.current;
    dragging.current = null;
    if (!t || !dropAllowed(lane.key, t)) return;
    if (lane.key !== t.assignee) {
      setReassign({ task: t, to: lane.key });
      return;
    }
    const over = (e.target as HTMLElement).closest<HTMLElement>('article.card');
    let before: string | null = null;
    if (over && over.dataset.task !== t.task_id) {
      const box = over.getBoundingClientRect();
      const idx = lane.tasks.findIndex((x) => x.task_id === over.dataset.task);
      before = e.clientY < box.top + box.height / 2 ? over.dataset.task! : (lane.tasks[idx + 1]?.task_id ?? null);
    } else if (over) return; // dropped on itself
    const r = await reorder(roomId, lane.tasks, t.task_id, before);
    setNote(r.ok ? undefined : describeError(r.error));
  }

  const itemKey = useCallback((t: BoardTask) => t.task_id, []);
  const render = useCallback(
    (t: BoardTask) => (
      <TaskCard
        task={t}
        members={members}
        plates={plates}
        links={links.get(t.task_id) ?? { waits: [], holds: [] }}
        focused={t.task_id === current}
        draggable={t.status !== 'done' && t.status !== 'cancelled'}
        onOpen={(x) => {
          setFocusId(x.task_id);
          setOpenId(x.task_id);
        }}
        onKey={onKey}
        onDragStart={onDragStart}
      />
    ),
    [members, plates, links, current, onKey, onDragStart, setOpenId],
  );

  if (!rb || !board) return phaseOf(rb) === 'error' ? <ErrorNote error={rb?.error} what="the board" retry={() => void load(roomId)} /> : <Loading what="the board" />;

  const filtered = !!(filter.assignee || filter.status);
  const shown = lanes.reduce((n, l) => n + l.tasks.length, 0);

  const laneName = (plate: string) => plates.get(plate) || '@agent';

  return (
    <div className="board" data-testid="board">
      <header className="board-head">
        <h2>Board</h2>
        <div className="filters" role="group" aria-label="Filter tasks">
          <label htmlFor="f-assignee">Assignee</label>
          <select id="f-assignee" value={filter.assignee} onChange={(e) => setFilter(roomId, { assignee: e.target.value })} className={filter.assignee ? 'active' : ''}>
            <option value="">All lanes</option>
            {(board?.lanes ?? []).map((l) => (
              <option key={l.assignee} value={l.assignee}>
                {l.handle || plates.get(l.assignee) || '@agent'}
              </option>
            ))}
          </select>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={filter.status} onChange={(e) => setFilter(roomId, { status: e.target.value as StatusFilter })} className={filter.status ? 'active' : ''}>
            {STATUS_OPTIONS.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="segmented" role="group" aria-label="Group the board">
          <button type="button" aria-pressed={byStatus} onClick={() => setGrouping('status')}>
            By status
          </button>
          <button type="button" aria-pressed={!byStatus} onClick={() => setGrouping('assignee')}>
            By assignee
          </button>
        </div>
        <button type="button" className="primary" onClick={() => setCreating(true)} aria-keyshortcuts="c">
          New task
        </button>
      </header>
      {filtered && (
        <p className="active-filters" data-testid="active-filters">
          Filtered:
          {filter.assignee && <span className="chip">lane {laneName(filter.assignee)}</span>}
          {filter.status && <span className="chip">{STATUS_OPTIONS.find(([v]) => v === filter.status)?.[1]}</span>}
          <button type="button" className="link" onClick={() => setFilter(roomId, NO_FILTER)}>
            Clear filters
          </button>
        </p>
      )}
      <p id="board-keys" className="sr-only">
        Arrow keys (or j and k) move between cards and columns, Enter opens the task, R reassigns it, Alt with Up or Down moves it within its lane when grouped by assignee, c creates a task.
      </p>
      {mayReassignHere && !mayReassignHere.ok && <p className="muted explain">{mayReassignHere.reason} Open a task to see what you may do with it.</p>}
      {rb.error && rb.error.status !== 0 && <ErrorNote error={rb.error} what="the latest board" />}
      {note && (
        <p role="alert" className="error-text">
          {note}
        </p>
      )}
      {tasks.length === 0 && (
        <Empty>{board?.lanes.length ? 'No tasks yet. Create one with “New task”.' : 'No tasks yet. Add agents to the room on the Members tab, then create a task for one of them.'}</Empty>
      )}
      {tasks.length > 0 && shown === 0 && filtered && <Empty>No tasks match these filters.</Empty>}
      {lanes.length > 0 && (
        <div className="lanes" ref={lanesRef}>
          {lanes.map((l) => (
            <section
              key={l.key}
              className={`lane ${l.key === DONE ? 'done-lane' : ''} ${byStatus ? `status-col col-${l.key === DONE ? 'done' : l.key}` : ''} ${dropLane === l.key ? 'drop' : ''}`}
              aria-label={byStatus ? l.title : `Lane ${l.title}`}
              data-lane={l.key}
              onDragOver={(e) => {
                if (!dropAllowed(l.key)) return;
                e.preventDefault();
                e.dataTransfer.dropEffect = 'move';
                if (dropLane !== l.key) setDropLane(l.key);
              }}
              onDragLeave={(e) => {
                if (!(e.currentTarget as HTMLElement).contains(e.relatedTarget as Node)) setDropLane(null);
              }}
              onDrop={(e) => void onDrop(e, l)}
            >
              <h3>
                {l.title} <span className="count" aria-label={`${l.count} tasks`}>{l.count}</span>
              </h3>
              <VirtualList
                items={l.tasks}
                itemKey={itemKey}
                estimate={78}
                render={render}
                ariaLabel={`Tasks of ${l.title}`}
                className="lane-list"
                overscanPx={400}
                reveal={reveal?.lane === l.key ? { key: reveal.key } : undefined}
                empty={<p className="muted pad">{filtered ? 'None match.' : 'No tasks.'}</p>}
              />
              {l.more && (
                <button
                  type="button"
                  className="link more"
                  onClick={() => {
                    if (l.key === DONE) return void loadMore(roomId, 'done');
                    if (!byStatus) return void loadMore(roomId, l.key);
                    // A status column gathers every assignee's lane: each lane with more gives its next page.
                    for (const x of board.lanes) if (x.next_cursor && (!filter.assignee || x.assignee === filter.assignee)) void loadMore(roomId, x.assignee);
                  }}
                >
                  Show more
                </button>
              )}
            </section>
          ))}
        </div>
      )}
      {openId && (
        <TaskDetail
          room={room}
          taskId={openId}
          view={openTaskView}
          members={members}
          tasks={tasks}
          plates={plates}
          onOpen={(t) => setOpenId(t.task_id)}
          onClose={() => setOpenId(null)}
        />
      )}
      {reassign && <ReassignDialog room={room} task={reassign.task} members={members} initial={reassign.to} onClose={() => setReassign(null)} />}
      {creating && <CreateTaskDialog room={room} tasks={tasks} onClose={() => setCreating(false)} />}
    </div>
  );
}
