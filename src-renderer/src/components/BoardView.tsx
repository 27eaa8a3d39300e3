import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { allTasks, useBoard, wouldCycle } from '../stores/board';
import { useRooms } from '../stores/rooms';
import { useSession } from '../stores/session';
import { TASK_STATUSES, type Room, type Task, type TaskStatus } from '../types';
import { describeError } from '../api';
import { VirtualList } from './VirtualList';
import { Loading, ErrorNote, Empty } from './States';
import { TaskCard } from './TaskCard';
import { TrustToggle } from './TrustToggle';
import { Dialog } from './Dialog';

const NEW = '__new__';

function CreateTaskDialog({ room, tasks, onClose }: { room: Room; tasks: Task[]; onClose: () => void }) {
  const members = useRooms((s) => s.members[room.room_id]?.data);
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
    const next = [...deps, id];
    if (wouldCycle(tasks, NEW, next)) {
      setErr(`Adding “${titleOf(id)}” would make a dependency cycle.`);
      return;
    }
    setErr(undefined);
    setDeps(next);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!title.trim() || !dod.trim() || !assignee) return setErr('Title, definition of done and assignee are required.');
    if (wouldCycle(tasks, NEW, deps)) return setErr('These dependencies make a cycle.');
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
          {deps.length === 0 && <p className="muted">No dependencies: the task is claimable at once.</p>}
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

export function BoardView({ room }: { room: Room }) {
  const roomId = room.room_id;
  const rb = useBoard((s) => s.rooms[roomId]);
  const { filterAssignee, filterStatus, setFilter, load } = useBoard();
  const members = useRooms((s) => s.members[roomId]?.data);
  const meId = useSession((s) => s.me?.owner_id ?? '');
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    void load(roomId);
  }, [roomId, load]);

  const board = rb?.board;
  const tasks = useMemo(() => allTasks(board), [board]);
  const titles = useMemo(() => new Map(tasks.map((t) => [t.task_id, t.title])), [tasks]);
  const plates = useMemo(() => {
    const m = new Map<string, string>();
    for (const l of board?.lanes ?? []) if (l.handle) m.set(l.assignee, l.handle);
    for (const a of members?.agents ?? []) m.set(a.plate, a.handle);
    return m;
  }, [board, members]);
  const keep = useCallback((t: Task) => !filterStatus || t.status === filterStatus, [filterStatus]);
  const lanes = useMemo(() => {
    if (!board) return [];
    const out = board.lanes
      .filter((l) => !filterAssignee || l.assignee === filterAssignee)
      .map((l) => ({ key: l.assignee, title: l.handle || plates.get(l.assignee) || '@agent', tasks: l.tasks.filter(keep) }));
    if (!filterStatus || filterStatus === 'done') {
      out.push({ key: '__done__', title: 'Done', tasks: board.done.filter((t) => (!filterAssignee || t.assignee === filterAssignee) && keep(t)) });
    }
    return out;
  }, [board, filterAssignee, filterStatus, keep, plates]);
  const itemKey = useCallback((t: Task) => t.task_id, []);
  const render = useCallback((t: Task) => <TaskCard task={t} room={room} meId={meId} members={members} titles={titles} plates={plates} />, [room, meId, members, titles, plates]);

  if (!rb || (rb.status === 'loading' && !board)) return <Loading what="the board" />;
  if (rb.status === 'error' && !board) return <ErrorNote error={rb.error} what="the board" retry={() => void load(roomId)} />;

  return (
    <div className="board" data-testid="board">
      <header className="board-head">
        <h2>Board</h2>
        {room.cross_owner && <TrustToggle room={room} />}
        <div className="filters" role="group" aria-label="Filter tasks">
          <label htmlFor="f-assignee">Assignee</label>
          <select id="f-assignee" value={filterAssignee} onChange={(e) => setFilter({ assignee: e.target.value })}>
            <option value="">All lanes</option>
            {(board?.lanes ?? []).map((l) => (
              <option key={l.assignee} value={l.assignee}>
                {l.handle || plates.get(l.assignee) || '@agent'}
              </option>
            ))}
          </select>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={filterStatus} onChange={(e) => setFilter({ status: e.target.value as TaskStatus | '' })}>
            <option value="">Any status</option>
            {TASK_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New task
        </button>
      </header>
      {rb.error && <ErrorNote error={rb.error} what="the latest board" />}
      {tasks.length === 0 && (
        <Empty>{board?.lanes.length ? 'No tasks yet. Create one with “New task”.' : 'No tasks yet. Add agents to the room on the Members tab, then create a task for one of them.'}</Empty>
      )}
      {lanes.length > 0 && (
        <div className="lanes">
          {lanes.map((l) => (
            <section key={l.key} className={`lane ${l.key === '__done__' ? 'done-lane' : ''}`} aria-label={`Lane ${l.title}`}>
              <h3>
                {l.title} <span className="count">{l.tasks.length}</span>
              </h3>
              <VirtualList items={l.tasks} itemKey={itemKey} estimate={170} render={render} ariaLabel={`Tasks of ${l.title}`} className="lane-list" overscanPx={400} empty={<p className="muted pad">No tasks.</p>} />
            </section>
          ))}
        </div>
      )}
      {creating && <CreateTaskDialog room={room} tasks={tasks} onClose={() => setCreating(false)} />}
    </div>
  );
}
