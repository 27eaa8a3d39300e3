import { useEffect } from 'react';
import { useWakes } from '../stores/wakes';
import { useFeedback } from '../stores/feedback';
import { phaseOf } from '../stores/room-resource';
import { usePlateHandles } from './ChatView';
import type { Room, Wake } from '../types';
import { Loading, ErrorNote, Empty } from './States';
import { formatTime } from './time';
import { UsageToday } from './Usage';

/** A wake dropped because its task was finished before it ran is ordinary, not a failure. */
function skipped(w: Pick<Wake, 'reason_code'>): boolean {
  return w.reason_code === 'task_done' || w.reason_code === 'task_cancelled' || w.reason_code === 'task_gone';
}

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export function WakesView({ room }: { room: Room }) {
  const roomId = room.room_id;
  const wakes = useWakes((s) => s.rooms[roomId]);
  const fb = useFeedback((s) => s.rooms[roomId]);
  const load = useWakes((s) => s.load);
  const loadFeedback = useFeedback((s) => s.load);
  const plates = usePlateHandles(roomId);
  useEffect(() => {
    void load(roomId);
    void loadFeedback(roomId);
  }, [roomId, load, loadFeedback]);
  const who = (plate: unknown) => plates.get(str(plate)) ?? '@agent';

  return (
    <div className="stack">
      <section aria-labelledby="wk-h">
        <h2 id="wk-h">Wake log</h2>
        <p className="muted">Each mention or assignment that woke an agent: queued, running, handled or failed.</p>
        <UsageToday room={roomId} who={who} />
        {!!wakes?.data?.some((w) => w.status === 'merged') && (
          <p className="muted" data-testid="coalesce-saved">
            Coalescing saved {wakes.data.filter((w) => w.status === 'merged').length} run(s) among these wakes: each merged mention was answered in another run.
          </p>
        )}
        {!wakes?.data ? (
          phaseOf(wakes) === 'error' ? <ErrorNote error={wakes?.error} what="wakes" retry={() => void load(roomId)} /> : <Loading what="wakes" />
        ) : wakes.data.length === 0 ? (
          <Empty>No wakes yet. Mention an agent that holds INVOKE, or assign it a task.</Empty>
        ) : (
          <table className="table" data-testid="wakes">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Agent</th>
                <th scope="col">Trigger</th>
                <th scope="col">Via</th>
                <th scope="col">Status</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {wakes.data.map((w) => (
                <tr key={w.wake_id}>
                  <td>
                    <time dateTime={w.created_at ?? undefined}>{formatTime(w.created_at)}</time>
                  </td>
                  <td>{who(w.plate)}</td>
                  <td>{w.trigger}</td>
                  <td>{[w.target, w.host].filter(Boolean).join(' / ')}</td>
                  <td>
                    {skipped(w) ? (
                      <span className="status-badge w-skipped" title="Not needed any more: the task was finished before the wake ran">
                        skipped
                      </span>
                    ) : (
                      <span className={`status-badge w-${w.status}`}>{w.status}</span>
                    )}
                    {w.no_tool_call && (
                      <span className="badge warn" title="The wake was handled but the agent made no tool call back">
                        handled without any tool call
                      </span>
                    )}
                  </td>
                  <td>
                    {w.reason && <div>Reason: {w.reason}</div>}
                    {w.exit_code !== null && w.exit_code !== undefined && <div>Exit code {w.exit_code}</div>}
                    {w.usage && (
                      <div className="muted">
                        Usage: {w.usage.input_tokens ?? '?'} in / {w.usage.output_tokens ?? '?'} out tokens{w.usage.cost_usd != null ? `, $${w.usage.cost_usd.toFixed(4)}` : ''}
                      </div>
                    )}
                    {(w.stdout_tail || w.stderr_tail) && (
                      <details>
                        <summary>Output tail</summary>
                        {w.stdout_tail && <pre>{w.stdout_tail}</pre>}
                        {w.stderr_tail && <pre className="stderr">{w.stderr_tail}</pre>}
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="fb-h">
        <h2 id="fb-h">Task feedback</h2>
        {!fb?.data ? (
          phaseOf(fb) === 'error' ? <ErrorNote error={fb?.error} what="feedback" retry={() => void loadFeedback(roomId)} /> : <Loading what="feedback" />
        ) : fb.data.task_feedback.length === 0 && fb.data.product_feedback.length === 0 ? (
          <Empty>No feedback from agents in this room yet.</Empty>
        ) : (
          <ul className="list">
            {fb.data.task_feedback.map((f) => (
              <li key={f.feedback_id}>
                <strong>{who(f.plate)}</strong> on task <code>{str(f.task_id)}</code>: <span className={`badge ${f.outcome === 'issue' ? 'warn' : 'ok'}`}>{f.outcome}</span>
                {f.severity ? <span className="badge">{f.severity}</span> : null}
                {f.recurrence.recurring && <span className="badge warn">recurring</span>}
                {f.issue ? <p>{f.issue}</p> : null}
                {f.recommended_fix ? <p className="muted">Fix: {f.recommended_fix}</p> : null}
              </li>
            ))}
            {fb.data.product_feedback.map((f) => (
              <li key={f.feedback_id}>
                <strong>{who(f.plate)}</strong> product feedback: <pre>{JSON.stringify(f.answers, null, 1)}</pre>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
