import { memo, useCallback, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import { describeError } from '../api';
import { onLiveEvent } from '../live-events';
import { changesKey, hasDiff, useChanges } from '../stores/changes';
import { useReviews } from '../stores/reviews';
import type { ChangedFile, Members, Task, TaskChanges as Changes } from '../types';
import { MergeControls, shortCommit } from './TaskMerge';
import { ReviewList, ReviewPanel } from './TaskReview';
import { formatTime } from './time';
import { VirtualList } from './VirtualList';

/**
 * The task page's Changes tab (docs/review.md): what the task's branch changed against its merge
 * base with the base branch, uncommitted work included, as a file list and a unified diff. The
 * diff is one windowed list (VirtualList) of file headers, hunk headers and lines, so a 10,000-line
 * change puts only the rows near the viewport into the DOM.
 */

type Line = ChangedFile['hunks'][number]['lines'][number];
/** A reservation another agent holds on a changed path (the changes answer's `reservations`). */
type Reservation = NonNullable<Extract<Changes, { base: unknown }>['reservations']>[number];
/** Asks for a comment on a line of the new side. */
type OnComment = (path: string, line: number, text: string) => void;

/** One row of the diff. */
type Row =
  | { k: 'file'; key: string; file: ChangedFile; index: number }
  | { k: 'note'; key: string; text: string }
  | { k: 'hunk'; key: string; header: string }
  | { k: 'line'; key: string; line: Line; path: string };

const STATUS_WORDS: Record<ChangedFile['status'], string> = { added: 'added', modified: 'modified', deleted: 'deleted', renamed: 'renamed' };
const MARK: Record<Line['kind'], string> = { add: '+', del: '−', context: ' ' };

const fileRowId = (taskId: string, index: number) => `chg-${taskId}-f${index}`;

/** Rows per answer: going back to the tab (or another view of the task) does not lay the diff out again. */
const rowsCache = new WeakMap<ChangedFile[], Row[]>();

/** The diff as rows: each file's header, then its hunks' headers and lines (or why there are none). */
function rowsOf(files: ChangedFile[]): Row[] {
  const held = rowsCache.get(files);
  if (held) return held;
  const rows: Row[] = [];
  files.forEach((file, i) => {
    rows.push({ k: 'file', key: `f${i}`, file, index: i });
    if (file.binary) rows.push({ k: 'note', key: `f${i}n`, text: 'binary file, not shown' });
    else if (!file.hunks.length) rows.push({ k: 'note', key: `f${i}n`, text: file.status === 'renamed' ? 'renamed, the content unchanged' : 'no lines changed' });
    file.hunks.forEach((h, j) => {
      rows.push({ k: 'hunk', key: `f${i}h${j}`, header: h.header });
      for (let n = 0; n < h.lines.length; n++) rows.push({ k: 'line', key: `f${i}h${j}l${n}`, line: h.lines[n]!, path: file.path });
    });
  });
  rowsCache.set(files, rows);
  return rows;
}

/** About how tall the diff is (the list measures its rows once shown): a short diff gets a short box. */
const ROW_PX = 20;
const HEAD_PX = 34;
function roughHeight(rows: Row[]): number {
  let px = 4;
  for (const r of rows) px += r.k === 'file' ? HEAD_PX : ROW_PX;
  return px;
}

function FileName({ file }: { file: ChangedFile }) {
  return file.old_path && file.old_path !== file.path ? (
    <>
      <code>{file.old_path}</code> → <code>{file.path}</code>
    </>
  ) : (
    <code>{file.path}</code>
  );
}

function Counts({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="counts">
      <span className="n-add">+{additions.toLocaleString()}</span> <span className="n-del">−{deletions.toLocaleString()}</span>
    </span>
  );
}

/** "reserved by @handle (exclusive) until Dec 2, 14:05", one per reservation on the file. */
function Reserved({ held }: { held?: Reservation[] }) {
  if (!held?.length) return null;
  return (
    <>
      {held.map((r, i) => (
        <span key={i} className="badge warn reserved-by" data-testid="reserved-by" title={r.pattern !== r.path ? `pattern ${r.pattern}` : undefined}>
          reserved by {r.handle} ({r.exclusive ? 'exclusive' : 'shared'}) until <time dateTime={r.expires_at}>{formatTime(r.expires_at)}</time>
        </span>
      ))}
    </>
  );
}

/** The reservations by changed path. */
function reservationsByPath(list: Reservation[] | undefined): Map<string, Reservation[]> {
  const m = new Map<string, Reservation[]>();
  for (const r of list ?? []) m.set(r.path, [...(m.get(r.path) ?? []), r]);
  return m;
}

/**
 * A diff row; rows already shown do not render again while the reader scrolls. A line of the new
 * side has one small button (shown on hover or focus) that adds a comment on it to the review.
 */
const DiffRow = memo(function DiffRow({ row, taskId, held, onComment }: { row: Row; taskId: string; held?: Reservation[]; onComment: OnComment }) {
  switch (row.k) {
    case 'file':
      return (
        <h5 className="df-head" id={fileRowId(taskId, row.index)} tabIndex={-1} data-path={row.file.path}>
          <FileName file={row.file} /> <span className={`status-badge st-${row.file.status}`}>{STATUS_WORDS[row.file.status]}</span>{' '}
          {row.file.binary ? <span className="muted">binary</span> : <Counts additions={row.file.additions} deletions={row.file.deletions} />} <Reserved held={held} />
        </h5>
      );
    case 'note':
      return <p className="df-note muted">{row.text}</p>;
    case 'hunk':
      return <div className="dh">{row.header}</div>;
    case 'line': {
      const l = row.line;
      return (
        <div className={`dl dl-${l.kind}`} data-kind={l.kind}>
          <span className="ln" title={l.old === undefined ? undefined : `old line ${l.old}`}>
            {l.old ?? ''}
          </span>
          <span className="ln" title={l.new === undefined ? undefined : `new line ${l.new}`}>
            {l.new ?? ''}
          </span>
          <span className="mk">{MARK[l.kind]}</span>
          <span className="dt">{l.text}</span>
          {l.new !== undefined && (
            <button type="button" className="dl-comment" aria-label={`Comment on ${row.path} line ${l.new}`} onClick={() => onComment(row.path, l.new!, l.text)}>
              +
            </button>
          )}
        </div>
      );
    }
  }
});

const rowKey = (r: Row) => r.key;
const NO_FILES: ChangedFile[] = [];

/** The task's state its changes follow: done, merged, a worktree made or gone. */
export const changesVersion = (task: Task) => `${task.status}|${task.merged?.commit ?? ''}|${task.worktree?.branch ?? ''}|${task.worktree_reason ?? ''}`;

/**
 * The changes move while a run of the task works: a `wake.transcript` or `wakes.changed` of a
 * running run of this task reads them again while the Changes tab is shown (`active`), at most
 * once per CHANGES_GATHER_MS; while it is not, or once the page closes, they are marked stale and
 * read when the tab opens again. Used by the task page for as long as it is open.
 */
export function useLiveChanges(roomId: string, taskId: string, runningWakeIds: string[], active: boolean) {
  const running = useRef(new Set<string>());
  running.current = new Set(runningWakeIds);
  const shown = useRef(active);
  shown.current = active;
  useEffect(() => {
    const moved = () => (shown.current ? useChanges.getState().soon(roomId, taskId) : useChanges.getState().stale(roomId, taskId));
    const off = onLiveEvent((type, e) => {
      if (type === 'wake.transcript') {
        const wakeId = (e.data as { wake_id?: string } | undefined)?.wake_id;
        if (wakeId && running.current.has(wakeId)) moved();
      } else if (type === 'wakes.changed' && (!e.room || e.room === roomId) && running.current.size > 0) moved();
    });
    return () => {
      off();
      useChanges.getState().stale(roomId, taskId);
    };
  }, [roomId, taskId]);
}

function Refs({ c }: { c: Extract<Changes, { base: unknown }> }) {
  return (
    <p className="changes-refs row wrap" data-testid="changes-refs">
      <span>
        <code>{c.base.branch}</code>@<code title={c.base.commit}>{shortCommit(c.base.commit)}</code>
      </span>
      <span>→</span>
      <span>
        <code>{c.head.branch}</code>@<code title={c.head.commit}>{shortCommit(c.head.commit)}</code>
      </span>
      {c.uncommitted && <span className="badge warn">includes uncommitted changes</span>}
    </p>
  );
}

export function TaskChanges({
  roomId,
  task,
  members,
  onMerged,
}: {
  roomId: string;
  task: Task;
  members?: Members;
  onMerged: (t: Task) => void;
}) {
  const taskId = task.task_id;
  const entry = useChanges((s) => s.byTask[changesKey(roomId, taskId)]);
  const version = changesVersion(task);
  // Read when the tab opens (unless what is held is current) and when the task's state moves.
  useEffect(() => useChanges.getState().ensure(roomId, taskId, version), [roomId, taskId, version]);
  const data = entry?.data;
  const files = data?.files;
  const rows = useMemo(() => rowsOf(files ?? NO_FILES), [files]);
  const height = useMemo(() => roughHeight(rows), [rows]);
  const [reveal, setReveal] = useState<{ key: string; align: 'start' }>();
  const [focusFile, setFocusFile] = useState<number>();
  // The jumped-to file's header takes the focus once the list has brought it into the DOM.
  useEffect(() => {
    if (focusFile === undefined) return;
    let frames = 0;
    let raf = 0;
    const tryFocus = () => {
      const el = document.getElementById(fileRowId(taskId, focusFile));
      if (el) {
        el.focus({ preventScroll: true });
        setFocusFile(undefined);
      } else if (frames++ < 10) raf = requestAnimationFrame(tryFocus);
    };
    raf = requestAnimationFrame(tryFocus);
    return () => cancelAnimationFrame(raf);
  }, [focusFile, reveal, taskId]);
  const jump = useCallback((i: number) => {
    setReveal({ key: `f${i}`, align: 'start' });
    setFocusFile(i);
  }, []);
  const reserved = useMemo(() => reservationsByPath(hasDiff(data) ? data.reservations : undefined), [data]);
  const [focusComment, setFocusComment] = useState<string>();
  const onComment = useCallback<OnComment>((path, line, text) => setFocusComment(useReviews.getState().addPending(roomId, taskId, { path, line, quoted: text })), [roomId, taskId]);
  const commentFocused = useCallback(() => setFocusComment(undefined), []);
  const render = useCallback((r: Row) => <DiffRow row={r} taskId={taskId} held={r.k === 'file' ? reserved.get(r.file.path) : undefined} onComment={onComment} />, [taskId, reserved, onComment]);
  const review = (
    <>
      <ReviewPanel roomId={roomId} taskId={taskId} focusId={focusComment} onFocused={commentFocused} />
      <ReviewList roomId={roomId} taskId={taskId} members={members} />
    </>
  );

  const controls = <MergeControls roomId={roomId} task={task} onMerged={onMerged} />;
  if (!data) {
    return (
      <div className="changes">
        {entry?.error ? (
          <p className="error-text" role="alert">
            Could not read the changes: {describeError(entry.error)}{' '}
            <button type="button" onClick={() => void useChanges.getState().load(roomId, taskId)}>
              Try again
            </button>
          </p>
        ) : (
          <p className="muted">Reading the changes…</p>
        )}
        {controls}
        {review}
      </div>
    );
  }
  if (!hasDiff(data)) {
    return (
      <div className="changes">
        <p className="muted" data-testid="changes-reason">
          No changes to show: {data.reason}.
        </p>
        {controls}
        {review}
      </div>
    );
  }
  const t = data.totals;
  return (
    <div className="changes">
      <div className="changes-head">
        <Refs c={data} />
        <p data-testid="changes-totals">
          {t.files === 1 ? '1 file changed' : `${t.files.toLocaleString()} files changed`}, <Counts additions={t.additions} deletions={t.deletions} />
          {entry.loading && <span className="muted"> · reading again…</span>}
        </p>
        {data.truncated && (
          <p className="note" data-testid="changes-truncated">
            More changed than is shown here: {data.files.length.toLocaleString()} of {t.files.toLocaleString()} files (the page shows at most 300 files and 2 MB of diff). In all: {t.files.toLocaleString()} files, +
            {t.additions.toLocaleString()} −{t.deletions.toLocaleString()}.
          </p>
        )}
        {data.reason && <p className="note">{data.reason}</p>}
        {entry.error && <p className="error-text">Could not read the latest changes: {describeError(entry.error)}</p>}
        {controls}
      </div>
      {files!.length === 0 ? (
        <p className="muted">The branch changes nothing against its base yet.</p>
      ) : (
        <>
          <nav aria-label="Changed files">
            <ol className="plain file-list">
              {files!.map((f, i) => (
                <li key={`${i}:${f.path}`}>
                  <button type="button" className="link" onClick={() => jump(i)}>
                    <FileName file={f} />
                  </button>{' '}
                  <span className={`status-badge st-${f.status}`}>{STATUS_WORDS[f.status]}</span> {f.binary ? <span className="muted">binary</span> : <Counts additions={f.additions} deletions={f.deletions} />}{' '}
                  <Reserved held={reserved.get(f.path)} />
                </li>
              ))}
            </ol>
          </nav>
          <div className="diff-box" style={{ '--diff-px': `${height}px` } as CSSProperties}>
            <VirtualList items={rows} itemKey={rowKey} estimate={ROW_PX} render={render} className="diff" role="region" ariaLabel="Diff" reveal={reveal} testId="diff" />
          </div>
        </>
      )}
      {review}
    </div>
  );
}
