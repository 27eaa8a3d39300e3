import { useEffect, useState, type ReactNode, type KeyboardEvent } from 'react';
import { useNeeds, routeMissing, NEED_LABEL, needsCount, type NeedItem } from '../stores/needs';
import { useRooms } from '../stores/rooms';
import { describeError, type ApiResult } from '../api';
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

const LABEL = NEED_LABEL;

/** The agent a wake is about, by handle (its plate when no agent holds it any more): never "@agent". */
const agentOf = (w: { handle?: string; plate: string }) => w.handle ?? w.plate;

/** What the item is about, in one line. */
function subject(i: NeedItem): string {
  if (i.task) return i.task.title;
  if (i.message) return `${i.message.sender.handle}: ${i.message.body.slice(0, 140)}`;
  if (i.wake) return `${agentOf(i.wake)} (${i.wake.trigger})`;
  return '';
}

function detail(i: NeedItem): string | undefined {
  if (i.kind === 'agent_stalled') return `running since ${i.wake?.started_at ? formatTime(i.wake.started_at) : 'a while'} with no tool call for over 5 minutes`;
  // A failed wake's one-line cause (docs/wakes.md "A failed wake's cause"), else its reason.
  if (i.wake) return i.wake.cause ?? i.wake.reason ?? undefined;
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
  const { retryWake, stopWake, releaseWake, dropWake, retryTask, releaseTask, dismiss } = useNeeds.getState();
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState(false);
  const run = (f: () => Promise<ApiResult<unknown>>) => async () => {
    setBusy(true);
    const r = await f();
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
        <button type="button" disabled={busy} className="danger" onClick={run(() => stopWake(w, false))} aria-label={`Stop wake of ${agentOf(w)} in ${item.room.name}`}>
          Stop
        </button>
        {!routeMissing('wake-retry') && (
          <button type="button" disabled={busy} onClick={run(() => stopWake(w, true))} aria-label={`Stop and requeue wake of ${agentOf(w)} in ${item.room.name}`}>
            Stop and requeue
          </button>
        )}
      </>
    );
  } else if (item.kind === 'wake_failed' && w && !routeMissing('wake-retry') && allows(w, 'retry')) {
    action = (
      <button type="button" disabled={busy} onClick={run(() => retryWake(w))} aria-label={`Retry wake of ${agentOf(w)} in ${item.room.name}`}>
        Retry
      </button>
    );
  } else if (item.kind === 'wake_held' && w && (allows(w, 'release') || allows(w, 'drop'))) {
    action = (
      <>
        {!routeMissing('wake-release') && allows(w, 'release') && (
          <button type="button" disabled={busy} onClick={run(() => releaseWake(w))} aria-label={`Release wake of ${agentOf(w)} in ${item.room.name}`}>
            Release
          </button>
        )}
        {!routeMissing('wake-drop') && allows(w, 'drop') && (
          <button type="button" disabled={busy} className="ghost" onClick={run(() => dropWake(w))} aria-label={`Drop wake of ${agentOf(w)} in ${item.room.name}`}>
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
    if (refusal) action = <span className="muted">{refusal.message}</span>;
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
        <button type="button" className="ghost" disabled={busy} onClick={run(() => dismiss(item))} aria-label={`Dismiss ${LABEL[item.kind]}: ${what}`} title="Take it off this list (Undo, or restore it from Dismissed)">
          Dismiss
        </button>
      </div>
    </li>
  );
}

/** Rooms other owners added me to: not mine until I accept (docs/needs-you.md "Invitations"). */
export function Invitations() {
  const invitations = useNeeds((s) => s.invitations);
  const total = useNeeds((s) => s.invitationsTotal);
  const [err, setErr] = useState<string>();
  const [busy, setBusy] = useState<string>();
  if (!invitations.length) return null;
  const act = (room: string, f: (room: string) => Promise<ApiResult<unknown>>) => async () => {
    setBusy(room);
    const r = await f(room);
    setBusy(undefined);
    setErr(r.ok ? undefined : describeError(r.error));
    if (r.ok) void useRooms.getState().load();
  };
  const { accept, decline } = useNeeds.getState();
  return (
    <section className="invitations" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <p className="muted">
        Another owner added you to {total === 1 ? 'a room' : `${total} rooms`}. Until you accept, the room is not in your list, its mentions of you wait here, and
        your agents cannot be added to it.
      </p>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      <ul className="invitation-list" aria-label="Invitations">
        {invitations.map((i) => (
          <li key={i.room.room_id} className="invitation" aria-label={`Invitation to ${i.room.name}`}>
            <div>
              <strong>{i.room.name}</strong>
              <div className="muted">
                from {i.invited_by ? `${i.invited_by.name} (${i.invited_by.handle})` : 'another owner'} · as {i.role} · {formatTime(i.invited_at)}
              </div>
            </div>
            <div className="row">
              <button type="button" disabled={busy === i.room.room_id} onClick={act(i.room.room_id, accept)} aria-label={`Accept invitation to ${i.room.name}`}>
                Accept
              </button>
              <button type="button" className="ghost" disabled={busy === i.room.room_id} onClick={act(i.room.room_id, decline)} aria-label={`Decline invitation to ${i.room.name}`}>
                Decline
              </button>
            </div>
          </li>
        ))}
      </ul>
      {total > invitations.length && <p className="muted">The newest {invitations.length} of {total} are shown.</p>}
    </section>
  );
}

/** Right after a dismissal: what went, and Undo. */
function UndoNote() {
  const last = useNeeds((s) => s.lastDismissed);
  if (!last) return <div role="status" aria-live="polite" className="undo-note" />;
  return (
    <div role="status" aria-live="polite" className="undo-note">
      Dismissed “{LABEL[last.kind]}: {subject(last)}”.{' '}
      <button type="button" className="link" onClick={() => void useNeeds.getState().undo()}>
        Undo
      </button>
    </div>
  );
}

/** What I dismissed, newest first, each with Restore. */
function Dismissed() {
  const [open, setOpen] = useState(false);
  const { dismissed, dismissedStatus } = useNeeds();
  useEffect(() => {
    if (open) void useNeeds.getState().loadDismissed();
  }, [open]);
  return (
    <section className="needs-dismissed" aria-labelledby="dismissed-title">
      <h2 id="dismissed-title">
        <button type="button" className="link" aria-expanded={open} aria-controls="dismissed-list" onClick={() => setOpen(!open)}>
          Dismissed
        </button>
      </h2>
      {open && (
        <div id="dismissed-list">
          {dismissedStatus === 'loading' ? (
            <Loading what="what you dismissed" />
          ) : dismissed.length === 0 ? (
            <p className="muted">Nothing dismissed.</p>
          ) : (
            <ul className="needs-list" aria-label="Dismissed">
              {dismissed.map((i) => {
                const what = subject(i);
                return (
                  <li key={`${i.kind}:${i.ref}`} className={`need need-${i.kind}`} aria-label={`${LABEL[i.kind]}: ${what} in ${i.room.name}`}>
                    <div className="need-main">
                      <span className={`need-kind k-${i.kind}`}>{LABEL[i.kind]}</span> <strong className="need-subject">{what}</strong>
                      <div className="muted need-meta">
                        in {i.room.name} · dismissed {i.dismissed_at ? formatTime(i.dismissed_at) : ''}
                      </div>
                    </div>
                    <div className="need-actions row">
                      <button type="button" onClick={() => void useNeeds.getState().restore(i)} aria-label={`Restore ${LABEL[i.kind]}: ${what}`}>
                        Restore
                      </button>
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

/** The start page: what waits on me across my rooms (docs/needs-you.md), live (stores/needs.ts followNeeds). */
export function NeedsYouView() {
  const { items, status, error, load, truncated } = useNeeds();
  const invitations = useNeeds((s) => s.invitationsTotal);
  const [focus, setFocus] = useState(0);
  useEffect(() => {
    void load();
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
      <Invitations />
      <UndoNote />
      {status === 'loading' || status === 'idle' ? (
        <Loading what="what needs you" />
      ) : status === 'error' ? (
        <ErrorNote error={error} what="what needs you" retry={() => void load()} />
      ) : items.length === 0 ? (
        <p className="empty-needs">
          {invitations ? 'Nothing else needs you right now.' : 'Nothing needs you right now: no stalled agents, no failed or held wakes, no blocked or failed tasks, no stale leases, no mentions.'}
        </p>
      ) : (
        <>
          <p className="muted">
            {items.length} item{items.length === 1 ? '' : 's'} across your rooms{truncated ? ' (the newest; more wait in the rooms)' : ''}. j/k move, Enter opens.
          </p>
          <ul className="needs-list" aria-label="Needs you" onKeyDown={onKey}>
            {items.map((i, n) => (
              <NeedRow key={`${i.kind}:${i.ref ?? i.wake?.wake_id ?? i.task?.task_id ?? i.message?.message_id}`} item={i} index={n} focused={n === Math.min(focus, items.length - 1)} onFocus={setFocus} />
            ))}
          </ul>
        </>
      )}
      <Dismissed />
      <p className="muted">
        <button type="button" className="link" onClick={() => navigate('welcome')}>
          Connect an agent
        </button>
      </p>
    </section>
  );
}

/** The navigation's count: what waits on me (items and invitations), for the Needs you link. */
export function NeedsCount() {
  const n = useNeeds((s) => needsCount(s));
  const truncated = useNeeds((s) => s.truncated);
  if (!n) return null;
  return (
    <span className="nav-count" data-testid="needs-count" title={`${n}${truncated ? '+' : ''} waiting on you`}>
      {n}
      {truncated ? '+' : ''}
    </span>
  );
}
