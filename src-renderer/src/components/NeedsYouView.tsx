import { useEffect, useState, type ReactNode, type KeyboardEvent } from 'react';
import { useNeeds, routeMissing, type NeedItem } from '../stores/needs';
import { onLiveEvent } from '../live-events';
import { describeError } from '../api';
import { href, navigate } from '../router';
import { Loading, ErrorNote } from './States';
import { formatTime } from './time';
import { actionOf } from './allowed';
import type { Actions, TaskAction, WakeAction } from '../types';

/** The server lists the act for this record and this human (its allowed_actions). */
const allows = <A extends string>(r: Actions<A>, a: A) => actionOf(r, a)?.ok === true;

/** The act a row offers, whose refusal reason the row shows when the server denies it. */
const ROW_ACT: Partial<Record<NeedItem['kind'], WakeAction | TaskAction>> = {
  agent_stalled: 'stop',
  wake_failed: 'retry',
  wake_held: 'release',
  task_failed: 'retry',
  lease_stale: 'release',
  task_blocked: 'reassign',
};

const LABEL: Record<NeedItem['kind'], string> = {
  agent_stalled: 'Agent stalled',
  wake_failed: 'Wake failed',
  wake_held: 'Wake held',
  task_failed: 'Task failed',
  task_blocked: 'Task blocked',
  lease_stale: 'Stale lease',
  blocked_by_failed: 'Waits on a failed task',
  mention: 'Mentioned you',
};

/** What the item is about, in one line. */
function subject(i: NeedItem): string {
  if (i.task) return i.task.title;
  if (i.message) return `${i.message.sender.handle}: ${i.message.body.slice(0, 140)}`;
  if (i.wake) return `${i.wake.handle ?? '@agent'} (${i.wake.trigger})`;
  return '';
}

function detail(i: NeedItem): string | undefined {
  if (i.kind === 'agent_stalled') return `running since ${i.wake?.started_at ? formatTime(i.wake.started_at) : 'a while'} with no tool call for over 5 minutes`;
  if (i.wake) return i.wake.reason ?? undefined;
  if (i.task && (i.kind === 'task_failed' || i.kind === 'task_blocked')) return i.task.reason ?? undefined;
  if (i.kind === 'lease_stale') return 'No lease renewal for over 120 s: release it so another agent can claim it.';
  return undefined;
}

/** Where "Open" goes: the task's page, the message in its room, or the room's wake log. */
function openHref(i: NeedItem): string {
  const r = i.room.room_id;
  if (i.task) return href('rooms', r, 'tasks', i.task.task_id);
  if (i.message) return href('rooms', r, 'messages', i.message.message_id);
  if (i.wake?.task_id) return href('rooms', r, 'tasks', i.wake.task_id);
  return href('rooms', r, 'wakes');
}

function NeedRow({ item, index, focused, onFocus }: { item: NeedItem; index: number; focused: boolean; onFocus: (i: number) => void }) {
  const { retryWake, stopWake, releaseWake, dropWake, retryTask, releaseTask } = useNeeds.getState();
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = (f: () => Promise<{ ok: boolean; error?: unknown }>) => async () => {
    setBusy(true);
    const r = (await f()) as Awaited<ReturnType<typeof retryWake>>;
    setBusy(false);
    setErr(r.ok ? undefined : describeError(r.error));
  };
  const what = subject(item);
  let action: ReactNode = null;
  const w = item.wake;
  const t = item.task;
  if (item.kind === 'agent_stalled' && w && !routeMissing('wake-stop') && allows(w, 'stop')) {
    action = (
      <>
        <button type="button" disabled={busy} className="danger" onClick={run(() => stopWake(w, false))} aria-label={`Stop wake of ${w.handle ?? 'agent'} in ${item.room.name}`}>
          Stop
        </button>
        {!routeMissing('wake-retry') && (
          <button type="button" disabled={busy} onClick={run(() => stopWake(w, true))} aria-label={`Stop and requeue wake of ${w.handle ?? 'agent'} in ${item.room.name}`}>
            Stop and requeue
          </button>
        )}
      </>
    );
  } else if (item.kind === 'wake_failed' && w && !routeMissing('wake-retry') && allows(w, 'retry')) {
    action = (
      <button type="button" disabled={busy} onClick={run(() => retryWake(w))} aria-label={`Retry wake of ${w.handle ?? 'agent'} in ${item.room.name}`}>
        Retry
      </button>
    );
  } else if (item.kind === 'wake_held' && w && (allows(w, 'release') || allows(w, 'drop'))) {
    action = (
      <>
        {!routeMissing('wake-release') && allows(w, 'release') && (
          <button type="button" disabled={busy} onClick={run(() => releaseWake(w))} aria-label={`Release wake of ${w.handle ?? 'agent'} in ${item.room.name}`}>
            Release
          </button>
        )}
        {!routeMissing('wake-drop') && allows(w, 'drop') && (
          <button type="button" disabled={busy} className="ghost" onClick={run(() => dropWake(w))} aria-label={`Drop wake of ${w.handle ?? 'agent'} in ${item.room.name}`}>
            Drop
          </button>
        )}
      </>
    );
  } else if (item.kind === 'task_failed' && t && !routeMissing('task-retry') && allows(t, 'retry')) {
    action = (
      <button type="button" disabled={busy} onClick={run(() => retryTask(t))} aria-label={`Retry task ${t.title}`}>
        Retry
      </button>
    );
  } else if (item.kind === 'lease_stale' && t && allows(t, 'release')) {
    action = (
      <button type="button" disabled={busy} onClick={run(() => releaseTask(t))} aria-label={`Release task ${t.title}`}>
        Release
      </button>
    );
  } else if (item.kind === 'task_blocked' && t && allows(t, 'reassign')) {
    action = (
      <a className="button" href={href('rooms', item.room.room_id, 'tasks', t.task_id)} aria-label={`Reassign task ${t.title}`}>
        Reassign
      </a>
    );
  } else {
    // Not yours to act on: the server's reason, so the row says who may.
    const act = ROW_ACT[item.kind];
    const refusal = act && (w ? w.denied_actions?.[act as WakeAction] : t?.denied_actions?.[act as TaskAction]);
    if (refusal) action = <span className="muted">{refusal}</span>;
  }
  const why = detail(item);
  return (
    <li
      className={`need need-${item.kind} ${focused ? 'focused' : ''}`}
      data-kind={item.kind}
      tabIndex={focused ? 0 : -1}
      aria-label={`${LABEL[item.kind]}: ${what} in ${item.room.name}`}
      onFocus={() => onFocus(index)}
    >
      <div className="need-main">
        <span className={`need-kind k-${item.kind}`}>{LABEL[item.kind]}</span>{' '}
        <strong className="need-subject">{what}</strong>
        <div className="muted need-meta">
          in <a href={href('rooms', item.room.room_id)}>{item.room.name}</a> · {formatTime(item.at)}
          {why && <span className="need-why"> · {why}</span>}
        </div>
        {err && (
          <p role="alert" className="error-text">
            {err}
          </p>
        )}
      </div>
      <div className="need-actions row">
        {action}
        <a className="button ghost" href={openHref(item)} aria-label={`Open ${what}`}>
          Open
        </a>
      </div>
    </li>
  );
}

/** The start page: what waits on me across my rooms (docs/needs-you.md), live. */
export function NeedsYouView() {
  const { items, status, error, load, truncated } = useNeeds();
  const [focus, setFocus] = useState(0);
  useEffect(() => {
    void load();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onLiveEvent((type) => {
      if (type !== 'board.changed' && type !== 'wakes.changed' && type !== 'message.created') return;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        void useNeeds.getState().load();
      }, 300);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [load]);

  function onKey(e: KeyboardEvent<HTMLUListElement>) {
    if (e.target instanceof HTMLButtonElement || e.target instanceof HTMLAnchorElement) return;
    let next = focus;
    if (e.key === 'j' || e.key === 'ArrowDown') next = Math.min(items.length - 1, focus + 1);
    else if (e.key === 'k' || e.key === 'ArrowUp') next = Math.max(0, focus - 1);
    else if (e.key === 'Enter' && items[focus]) {
      e.preventDefault();
      window.location.hash = openHref(items[focus]!).slice(1);
      return;
    } else return;
    e.preventDefault();
    setFocus(next);
    (e.currentTarget.children[next] as HTMLElement | undefined)?.focus();
  }

  return (
    <section className="needs-you" aria-labelledby="needs-title">
      <h1 id="needs-title">Needs you</h1>
      {status === 'loading' || status === 'idle' ? (
        <Loading what="what needs you" />
      ) : status === 'error' ? (
        <ErrorNote error={error} what="what needs you" retry={() => void load()} />
      ) : items.length === 0 ? (
        <p className="empty-needs">Nothing needs you right now: no stalled agents, no failed or held wakes, no blocked or failed tasks, no stale leases, no mentions.</p>
      ) : (
        <>
          <p className="muted">
            {items.length} item{items.length === 1 ? '' : 's'} across your rooms{truncated ? ' (the newest; more wait in the rooms)' : ''}. j/k move, Enter opens.
          </p>
          <ul className="needs-list" aria-label="Needs you" onKeyDown={onKey}>
            {items.map((i, n) => (
              <NeedRow key={`${i.kind}:${i.wake?.wake_id ?? i.task?.task_id ?? i.message?.message_id}`} item={i} index={n} focused={n === Math.min(focus, items.length - 1)} onFocus={setFocus} />
            ))}
          </ul>
        </>
      )}
      <p className="muted">
        <button type="button" className="link" onClick={() => navigate('welcome')}>
          Connect an agent
        </button>
      </p>
    </section>
  );
}
