import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { TaskRuns, useTaskWakes } from './TaskRuns';
import { TaskHistory } from './TaskHistory';
import { TaskChanges, useLiveChanges } from './TaskChanges';
import { MergeControls, MergedNote, shortCommit } from './TaskMerge';
import { changesKey, hasDiff, useChanges } from '../stores/changes';
import type { BoardTask, Members, Room, Task } from '../types';
import { useBoard } from '../stores/board';
import { describeError, enc } from '../api';
import { client } from '../client';
import { Confirm, Dialog } from './Dialog';
import { actionOf, type Allowed } from './allowed';
import { dePlate } from './MessageBody';
import { Avatar, shortName, staleNote } from './TaskCard';
import { formatTime } from './time';
import { renderMarkdown } from './markdown';
import { optionalCall, routeMissing } from '../stores/needs';
import { href, navigate } from '../router';
import { ReviewList } from './TaskReview';

type Overlap = NonNullable<Task['overlaps']>[number];

/** Other open tasks whose branches change the same files (docs/review.md "Overlaps"), each with a link and the shared paths. */
function OverlapsNote({ roomId, overlaps }: { roomId: string; overlaps?: Overlap[] }) {
  if (!overlaps?.length) return null;
  return (
    <div className="overlaps-note" role="note" aria-label="Overlapping tasks" data-testid="overlaps-note">
      <p>
        {overlaps.length === 1 ? 'Another open task changes the same files:' : `${overlaps.length} other open tasks change the same files:`}
      </p>
      <ul>
        {overlaps.map((o) => (
          <li key={o.task_id}>
            <a href={`#/rooms/${enc(roomId)}/tasks/${enc(o.task_id)}`}>{o.title}</a>:{' '}
            {o.paths.map((p, i) => (
              <span key={p}>
                {i > 0 && ', '}
                <code>{p}</code>
              </span>
            ))}
          </li>
        ))}
      </ul>
    </div>
  );
}

const NO_MENTIONS = { handles: [] as string[], mine: new Set<string>() };

/** Task text as Markdown (markdown.ts: escaped, no raw HTML, checked links). */
function Md({ text }: { text: string }) {
  return <div className="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(text, NO_MENTIONS) }} />;
}

const when = formatTime;

/** Reassign: the same dialog from the detail panel, the keyboard shortcut and a drop on another lane. */
export function ReassignDialog({ room, task, members, initial, onClose }: { room: Room; task: BoardTask | Task; members?: Members; initial?: string; onClose: () => void }) {
  const assign = useBoard((s) => s.assign);
  const [assignee, setAssignee] = useState(initial ?? task.assignee);
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <Dialog title={`Reassign “${task.title}”`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const r = await assign(room.room_id, task.task_id, assignee);
          setBusy(false);
          if (r.ok) onClose();
          else setErr(describeError(r.error));
        }}
      >
        <label htmlFor={`re-${task.task_id}`}>New assignee</label>
        <select id={`re-${task.task_id}`} value={assignee} onChange={(e) => setAssignee(e.target.value)}>
          {(members?.agents ?? [])
            .filter((a) => !a.revoked)
            .map((a) => (
              <option key={a.plate} value={a.plate}>
                {a.handle}
              </option>
            ))}
        </select>
        <p className="muted">The status stays {task.status}; the new assignee is told and, if it may be woken, woken. Another owner’s agent needs that owner’s Trust.</p>
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" className="primary" disabled={busy || assignee === task.assignee}>
            Reassign
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function TaskLinks({ label, tasks, onOpen }: { label: string; tasks: BoardTask[]; onOpen: (t: BoardTask) => void }) {
  if (!tasks.length) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <ul className="plain">
          {tasks.map((t) => (
            <li key={t.task_id}>
              <button type="button" className="link" onClick={() => onOpen(t)}>
                {t.title}
              </button>{' '}
              <span className={`status-badge s-${t.status}`}>{t.status}</span>
            </li>
          ))}
        </ul>
      </dd>
    </div>
  );
}

/** The task page's tabs: the record and its runs, and what its branch changed. */
const TASK_TABS = [
  ['overview', 'Overview'],
  ['changes', 'Changes'],
] as const;
type TaskTab = (typeof TASK_TABS)[number][0];

/**
 * Everything about one task, with the edits and actions the server allows (the record's
 * `allowed_actions`). The full record is read by id (the board may carry a compact shape);
 * actions the viewer may not take are hidden, with the server's sentence saying who may.
 * `view` is the route's fifth part: `changes` opens the Changes tab
 * (`#/rooms/:id/tasks/:taskId/changes`).
 */
export function TaskDetail({
  room,
  taskId,
  view,
  members,
  tasks,
  plates,
  onOpen,
  onClose,
}: {
  room: Room;
  taskId: string;
  view?: string;
  members?: Members;
  tasks: BoardTask[];
  plates: Map<string, string>;
  onOpen: (t: BoardTask) => void;
  onClose: () => void;
}) {
  const fromBoard = tasks.find((t) => t.task_id === taskId);
  const boardVersion = useBoard((s) => s.rooms[room.room_id]?.data);
  const { act, edit } = useBoard.getState();
  const [full, setFull] = useState<Task | undefined>();
  const [err, setErr] = useState<string>();
  const [dialog, setDialog] = useState<null | 'reassign' | 'cancel' | 'release'>(null);
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [detail, setDetail] = useState('');
  const [order, setOrder] = useState('');
  const { wakes: taskWakes, reload: reloadWakes } = useTaskWakes(room.room_id, taskId, boardVersion);
  const tab: TaskTab = view === 'changes' ? 'changes' : 'overview';
  const tabRefs = useRef<Partial<Record<TaskTab, HTMLButtonElement | null>>>({});
  const [notice, setNotice] = useState<string>();
  // The base branch the window saw: a merged task's record has no worktree left to name it.
  const changes = useChanges((s) => s.byTask[changesKey(room.room_id, taskId)]?.data);
  const basesSeen = useRef<Record<string, string>>({});
  if (full?.task_id === taskId && full.worktree) basesSeen.current[taskId] = full.worktree.base_branch;
  else if (hasDiff(changes)) basesSeen.current[taskId] = changes.base.branch;
  useEffect(() => setNotice(undefined), [taskId]);
  useEffect(() => {
    let live = true;
    void client.tasks.read({ params: { id: room.room_id, taskId } }).then((r) => {
      if (live && r.ok) setFull(r.data);
    });
    return () => {
      live = false;
    };
    // Read again when the runs change too: the first run makes the task's worktree.
  }, [room.room_id, taskId, boardVersion, taskWakes]);
  const runningWakeIds = (taskWakes ?? []).filter((w) => w.status === 'running').map((w) => w.wake_id);
  useLiveChanges(room.room_id, taskId, runningWakeIds, tab === 'changes');
  // The record read for this task (`full` may still be the last task's for a moment).
  const record = full?.task_id === taskId ? full : undefined;
  const task = record ?? fromBoard;
  if (!task) return null;
  function selectTab(k: TaskTab) {
    window.location.replace(k === 'changes' ? href('rooms', room.room_id, 'tasks', taskId, 'changes') : href('rooms', room.room_id, 'tasks', taskId));
  }
  function onTabKey(e: KeyboardEvent<HTMLDivElement>) {
    const i = TASK_TABS.findIndex(([k]) => k === tab);
    const to = e.key === 'ArrowRight' ? (i + 1) % TASK_TABS.length : e.key === 'ArrowLeft' ? (i + TASK_TABS.length - 1) % TASK_TABS.length : e.key === 'Home' ? 0 : e.key === 'End' ? TASK_TABS.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    const k = TASK_TABS[to]![0];
    selectTab(k);
    tabRefs.current[k]?.focus();
  }
  function merged(t: Task) {
    setFull(t);
    setErr(undefined);
    if (t.merged) setNotice(`Merged as ${shortCommit(t.merged.commit)}.`);
  }

  const byId = new Map(tasks.map((t) => [t.task_id, t]));
  const waits = (task.blocked_by ?? []).map((id) => byId.get(id)).filter((t): t is BoardTask => !!t);
  const doneDeps = (task.depends_on ?? []).filter((id) => !(task.blocked_by ?? []).includes(id)).map((id) => byId.get(id)).filter((t): t is BoardTask => !!t);
  const holds = tasks.filter((t) => (t.depends_on ?? []).includes(task.task_id));
  const handle = task.assignee_handle || plates.get(task.assignee) || task.assignee;
  const instance = task.lease?.instance_id ? members?.instances.find((i) => i.instance_id === task.lease?.instance_id) : undefined;

  const retryRule: Allowed | null = routeMissing('task-retry') ? null : actionOf(task, 'retry');
  const rules: Array<[string, Allowed | null, () => void]> = [
    [
      'Retry',
      retryRule,
      () =>
        void optionalCall('task-retry', client.tasks.retry({ params: { id: room.room_id, taskId: task.task_id }, body: {} })).then((r) => {
          if (!r.ok) return setErr(routeMissing('task-retry') ? 'This server cannot retry a failed task yet.' : describeError(r.error));
          void useBoard.getState().load(room.room_id);
          navigate('rooms', room.room_id, 'tasks', r.data.task_id);
        }),
    ],
    ['Reassign', actionOf(task, 'reassign'), () => setDialog('reassign')],
    ['Cancel task', actionOf(task, 'cancel'), () => setDialog('cancel')],
    ['Force-release', actionOf(task, 'release'), () => setDialog('release')],
    [
      'Archive',
      actionOf(task, 'archive'),
      () =>
        void act(room.room_id, task.task_id, 'archive').then((r) => {
          if (r.ok) onClose();
          else setErr(describeError(r.error));
        }),
    ],
  ];
  const allowed = rules.filter(([, a]) => a?.ok);
  const refusals = [...new Set(rules.flatMap(([, a]) => (a && !a.ok ? [a.reason] : [])))];
  const editRule = actionOf(task, 'edit');

  function startEdit() {
    setTitle(task!.title);
    setDetail(task!.detail ?? '');
    setOrder(task!.order === null || task!.order === undefined ? '' : String(task!.order));
    setEditing(true);
  }
  async function save(e: FormEvent) {
    e.preventDefault();
    const change: { title?: string; detail?: string | null; order?: number | null } = {};
    if (title.trim() !== task!.title) change.title = title.trim();
    if (detail !== (task!.detail ?? '')) change.detail = detail.trim() ? detail : null;
    const o = order.trim() === '' ? null : Number(order);
    if (o !== null && !Number.isInteger(o)) return setErr('Order must be a whole number.');
    if (o !== (task!.order ?? null)) change.order = o;
    if (!Object.keys(change).length) return setEditing(false);
    const r = await edit(room.room_id, task!.task_id, change);
    if (r.ok) {
      setFull(r.data);
      setEditing(false);
      setErr(undefined);
    } else setErr(describeError(r.error));
  }

  return (
    <Dialog title={`Task: ${task.title}`} onClose={onClose} wide sheet className={tab === 'changes' ? 'changes-open' : undefined}>
      <p className="muted task-link">
        Link: <a href={`#/rooms/${enc(room.room_id)}/tasks/${enc(task.task_id)}`}>{`#/rooms/${room.room_id}/tasks/${task.task_id}`}</a>
      </p>
      <div className="task-detail" data-testid="task-detail">
        <p className="row wrap">
          <span className={`status-badge s-${task.status}`}>{task.status}</span>
          <span className="assignee">
            <Avatar handle={handle} /> {handle}
          </span>
          {waits.length > 0 && <span className="dep waits">waits on {waits.length === 1 ? 'a prerequisite' : `${waits.length} prerequisites`}</span>}
          {task.consent_state === 'accepted' && <span className="badge">assigned across owners under Trust</span>}
        </p>
        {task.follow_up_of && (
          <p className="follow-up-of" data-testid="follow-up-of">
            Follow-up of{' '}
            <a href={`#/rooms/${enc(room.room_id)}/tasks/${enc(task.follow_up_of)}`}>{byId.get(task.follow_up_of)?.title ?? `task ${task.follow_up_of}`}</a>
          </p>
        )}
        <OverlapsNote roomId={room.room_id} overlaps={task.overlaps} />
        {record && <MergedNote task={record} base={basesSeen.current[taskId]} members={members} />}
        {notice && (
          <p role="status" className="ok-text" data-testid="merge-notice">
            {notice}
          </p>
        )}
        <div role="tablist" aria-label="Task page" className="tabs small task-tabs" onKeyDown={onTabKey}>
          {TASK_TABS.map(([k, label]) => (
            <button
              key={k}
              ref={(el) => {
                tabRefs.current[k] = el;
              }}
              type="button"
              role="tab"
              id={`task-tab-${k}`}
              aria-selected={tab === k}
              aria-controls={tab === k ? `task-panel-${k}` : undefined}
              tabIndex={tab === k ? 0 : -1}
              onClick={() => selectTab(k)}
            >
              {label}
            </button>
          ))}
        </div>
        {tab === 'changes' ? (
          <div role="tabpanel" id="task-panel-changes" aria-labelledby="task-tab-changes" className="task-panel">
            {record ? <TaskChanges roomId={room.room_id} task={record} members={members} onMerged={merged} /> : <p className="muted">Reading the task…</p>}
          </div>
        ) : (
          <div role="tabpanel" id="task-panel-overview" aria-labelledby="task-tab-overview" className="task-panel">
            {editing ? (
              <form className="stack" onSubmit={save} aria-label="Edit task">
                <label htmlFor="td-title">Title</label>
                <input id="td-title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} required />
                <label htmlFor="td-detail">Detail</label>
                <textarea id="td-detail" value={detail} onChange={(e) => setDetail(e.target.value)} rows={5} />
                <label htmlFor="td-order">Order in the lane (lower first)</label>
                <input id="td-order" className="short" inputMode="numeric" value={order} onChange={(e) => setOrder(e.target.value)} />
                <div className="row end">
                  <button type="button" onClick={() => setEditing(false)}>
                    Discard
                  </button>
                  <button type="submit" className="primary">
                    Save changes
                  </button>
                </div>
              </form>
            ) : (
              <dl className="facts wide">
                <div>
                  <dt>Detail</dt>
                  <dd className="notes">{task.detail ? <Md text={dePlate(task.detail, plates)} /> : <span className="muted">none</span>}</dd>
                </div>
                <div>
                  <dt>Done when</dt>
                  <dd className="notes">
                    <Md text={dePlate(task.definition_of_done ?? '', plates)} />
                  </dd>
                </div>
                <div>
                  <dt>Order</dt>
                  <dd>{task.order ?? <span className="muted">not set (by creation)</span>}</dd>
                </div>
                <TaskLinks label="Waits on" tasks={waits} onOpen={onOpen} />
                <TaskLinks label="Done prerequisites" tasks={doneDeps} onOpen={onOpen} />
                <TaskLinks label="Holds up" tasks={holds} onOpen={onOpen} />
                {task.lease && (task.lease.instance_id || ('handle' in task.lease && task.lease.handle)) && (
                  <div>
                    <dt>Working</dt>
                    <dd>
                      {shortName(handle)}
                      {instance ? ` (${instance.host})` : ''}
                      {'renewed_at' in task.lease && task.lease.renewed_at ? `, lease renewed ${when(task.lease.renewed_at)}` : ''}
                      {task.lease.stale && <span className="badge warn">stale: {staleNote(boardVersion?.lease_stale_after_ms).toLowerCase()}</span>}
                    </dd>
                  </div>
                )}
                {task.reason && (
                  <div>
                    <dt>Reason</dt>
                    <dd>{task.reason}</dd>
                  </div>
                )}
                {task.handoff_notes && (
                  <div>
                    <dt>Handoff notes</dt>
                    <dd className="notes">{dePlate(task.handoff_notes, plates)}</dd>
                  </div>
                )}
                {(task.summary || task.result_ref) && (
                  <div>
                    <dt>Result</dt>
                    <dd>
                      {task.summary && dePlate(task.summary, plates)} {task.result_ref && <code>{task.result_ref}</code>}
                    </dd>
                  </div>
                )}
                {task.artifacts && task.artifacts.length > 0 && (
                  <div>
                    <dt>Artifacts</dt>
                    <dd>
                      <ul className="plain">
                        {task.artifacts.map((a, i) => (
                          <li key={i}>
                            <code>{typeof a === 'string' ? a : JSON.stringify(a)}</code>
                          </li>
                        ))}
                      </ul>
                    </dd>
                  </div>
                )}
                {task.next && (
                  <div>
                    <dt>Next</dt>
                    <dd>{task.next}</dd>
                  </div>
                )}
              </dl>
            )}
            <TaskHistory roomId={room.room_id} taskId={taskId} board={boardVersion} runs={taskWakes} />
            {err && (
              <p role="alert" className="error-text">
                {err}
              </p>
            )}
            <div className="row wrap detail-actions">
              {!editing && editRule?.ok && (
                <button type="button" onClick={startEdit}>
                  Edit
                </button>
              )}
              {allowed.map(([label, , run]) => (
                <button key={label} type="button" onClick={run} className={label === 'Cancel task' ? 'danger' : undefined}>
                  {label}
                </button>
              ))}
            </div>
            {(refusals.length > 0 || (editRule && !editRule.ok)) && <p className="muted explain">{refusals[0] ?? (editRule && !editRule.ok ? editRule.reason : '')}</p>}
            {record && <MergeControls roomId={room.room_id} task={record} onMerged={merged} />}
            <ReviewList roomId={room.room_id} taskId={taskId} members={members} />
            <TaskRuns task={full} wakes={taskWakes} handles={plates} onChanged={reloadWakes} />
          </div>
        )}
      </div>
      {dialog === 'reassign' && <ReassignDialog room={room} task={task} members={members} onClose={() => setDialog(null)} />}
      {dialog === 'cancel' && (
        <Confirm
          title="Cancel task?"
          text={`“${task.title}” will be withdrawn (cancelled). Tasks that depend on it keep waiting.`}
          action="Cancel task"
          onConfirm={() =>
            act(room.room_id, task.task_id, 'cancel').then((r) => {
              if (!r.ok) setErr(describeError(r.error));
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'release' && (
        <Confirm
          title="Force-release the lease?"
          text={`“${task.title}” goes back to todo and can be claimed again. The current holder loses it.`}
          action="Force-release"
          onConfirm={() =>
            act(room.room_id, task.task_id, 'release').then((r) => {
              if (!r.ok) setErr(describeError(r.error));
            })
          }
          onClose={() => setDialog(null)}
        />
      )}
    </Dialog>
  );
}
