import { useEffect, useRef, useState } from 'react';
import type { TaskEvent } from '../types';
import { client } from '../client';
import { formatTime } from './time';

/**
 * The task page's History (docs/tasks.md "History"): the changes the server recorded, oldest
 * first, each with who made it and why, paged with "Show more". It is read again whenever the
 * board or the task's runs change (`board`, `runs`: the stores' live data), so a claim, a block or a reassignment shows up live.
 */

const PAGE = 50;
/** A live refresh reads what is shown again in one request, up to the route's bound. */
const REFRESH_MAX = 200;

type State = { events: TaskEvent[]; next: number | null; error?: string };

function who(e: TaskEvent): string {
  if (e.actor.kind === 'server') return 'Agent Rooms';
  return e.actor.handle ?? e.actor.id;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const shortId = (id: string | undefined) => (id && id.length > 14 ? `${id.slice(0, 12)}…` : id);

const VERDICT: Record<string, string> = { approve: 'approved it', request_changes: 'asked for changes', comment: 'commented' };

/** One event in people's words; the actor is shown apart, before it, and a reason after it (a handled wake's is the server's bookkeeping). */
function says(e: TaskEvent): string {
  const d = e.detail ?? {};
  const toAgent = e.to_handle ?? e.to;
  const trigger = str(d.trigger);
  switch (e.kind) {
    case 'created':
      return `created it${toAgent ? `, for ${toAgent}` : ''}${str(d.retry_of) ? ', as the retry of a failed task' : ''}`;
    case 'edited':
      return `edited ${Array.isArray(d.fields) ? (d.fields as string[]).map((f) => f.replace(/_/g, ' ')).join(', ') : 'it'}`;
    case 'claimed':
      return d.receipt ? 'claimed it: its run started' : `claimed it${str(d.instance_id) ? ` (session ${shortId(str(d.instance_id))})` : ''}`;
    case 'lease_renewed': {
      const n = num(d.count) ?? 1;
      return `renewed the lease ${n === 1 ? 'once' : `${n} times`}${str(d.last_at) ? `, last ${formatTime(str(d.last_at))}` : ''}`;
    }
    case 'lease_gone':
      return 'saw the lease holder end: the lease is stale until someone releases or reassigns it';
    case 'released':
      return e.actor.kind === 'human' ? 'force-released it: back to todo' : 'released it: back to todo';
    case 'status_changed':
      return `moved it from ${e.from ?? '?'} to ${e.to ?? '?'}`;
    case 'completed':
      return `completed it${str(d.summary) ? `: ${str(d.summary)}` : ''}`;
    case 'reassigned':
      return `reassigned it from ${e.from_handle ?? e.from ?? '?'} to ${e.to_handle ?? e.to ?? '?'}`;
    case 'cancelled':
      return 'cancelled it';
    case 'archived':
      return 'archived it';
    case 'retried':
      return 'retried it as a new copy';
    case 'wake_queued':
      return `queued a wake for ${toAgent ?? 'the agent'}${trigger ? ` (${trigger})` : ''}`;
    case 'wake_held':
      return `held a wake for ${toAgent ?? 'the agent'}`;
    case 'wake_handled':
      return `saw ${toAgent ?? 'the agent'} handle its wake`;
    case 'wake_failed':
      return `saw the wake of ${toAgent ?? 'the agent'} fail`;
    case 'reviewed':
      return VERDICT[str(d.verdict) ?? ''] ?? 'reviewed it';
    case 'merged':
      return `merged it${str(d.into) ? ` into ${str(d.into)}` : ''}${str(d.commit) ? ` (${str(d.commit)!.slice(0, 7)})` : ''}`;
    default:
      return (e as TaskEvent).kind;
  }
}

export function TaskHistory({ roomId, taskId, board, runs }: { roomId: string; taskId: string; board: unknown; runs: unknown }) {
  const [state, setState] = useState<State | undefined>();
  const [busy, setBusy] = useState(false);
  const shown = useRef(0);
  useEffect(() => {
    setState(undefined);
    shown.current = 0;
  }, [roomId, taskId]);
  useEffect(() => {
    const ctl = new AbortController();
    const limit = Math.min(REFRESH_MAX, Math.max(PAGE, shown.current));
    void client.tasks.history({ params: { id: roomId, taskId }, query: { limit }, signal: ctl.signal }).then((r) => {
      if (ctl.signal.aborted) return;
      if (!r.ok) return setState((s) => ({ events: s?.events ?? [], next: s?.next ?? null, error: 'The history could not be read; it is read again with the next change.' }));
      setState((s) => {
        // Pages read past the refresh's bound stay as they were.
        const beyond = (s?.events ?? []).filter((e) => r.data.next_cursor !== null && e.seq > r.data.next_cursor);
        const events = [...r.data.events, ...beyond];
        shown.current = events.length;
        return { events, next: beyond.length ? (s?.next ?? null) : r.data.next_cursor };
      });
    });
    return () => ctl.abort();
  }, [roomId, taskId, board, runs]);

  async function more() {
    if (!state || state.next === null) return;
    setBusy(true);
    const r = await client.tasks.history({ params: { id: roomId, taskId }, query: { after: state.next, limit: PAGE } });
    setBusy(false);
    if (!r.ok) return setState({ ...state, error: 'More history could not be read; try again.' });
    const seen = new Set(state.events.map((e) => e.seq));
    const events = [...state.events, ...r.data.events.filter((e) => !seen.has(e.seq))];
    shown.current = events.length;
    setState({ events, next: r.data.next_cursor });
  }

  return (
    <section className="task-history" aria-labelledby={`history-h-${taskId}`} data-testid="task-history">
      <h3 id={`history-h-${taskId}`}>History</h3>
      {!state ? (
        <p className="muted">Reading the history…</p>
      ) : state.events.length === 0 ? (
        <p className="muted">Nothing recorded yet.</p>
      ) : (
        <ol className="history-list plain" aria-label="Recorded changes">
          {state.events.map((e) => (
            <li key={e.seq} data-kind={e.kind}>
              <time dateTime={e.at} className="muted">
                {formatTime(e.at)}
              </time>{' '}
              <strong className="history-actor">{who(e)}</strong> {says(e)}
              {e.reason && e.kind !== 'wake_handled' ? <span className="history-reason">: {e.reason}</span> : null}
            </li>
          ))}
        </ol>
      )}
      {state?.error && (
        <p role="alert" className="error-text">
          {state.error}
        </p>
      )}
      {state && state.next !== null && (
        <button type="button" onClick={() => void more()} disabled={busy}>
          Show more
        </button>
      )}
    </section>
  );
}
