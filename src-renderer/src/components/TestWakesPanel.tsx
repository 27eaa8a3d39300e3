import { useCallback, useEffect, useState } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { onLiveEvent } from '../live-events';
import type { TestWakeList } from '../types';
import { formatTime } from './time';

const STATUS_WORDS: Record<string, string> = {
  queued: 'queued',
  running: 'running',
  handled: 'handled',
  failed: 'failed',
  held: 'held',
  merged: 'merged into another run',
};

/**
 * Settings, "Test wakes": the owner's private room of test wakes (docs/wakes.md "Test wakes"),
 * which `agent-rooms doctor --wake` and the connect dialog's live test post to. It is not in the
 * room list and never counts as unread; here are its recent wakes and how each ended.
 */
export function TestWakesPanel() {
  const [data, setData] = useState<TestWakeList>();
  const [err, setErr] = useState<string>();
  const load = useCallback(async () => {
    const r = await client.wakes.tests({ query: { limit: 20 } });
    if (r.ok) {
      setData(r.data);
      setErr(undefined);
    } else setErr(describeError(r.error));
  }, []);
  useEffect(() => {
    void load();
    let t: ReturnType<typeof setTimeout> | undefined;
    // The test room's wakes change as a test runs; a new test room comes with rooms.changed.
    const off = onLiveEvent((type, e) => {
      if ((type === 'wakes.changed' && (!e.room || e.room === data?.room_id)) || type === 'rooms.changed') {
        if (!t) t = setTimeout(() => ((t = undefined), void load()), 300);
      }
    });
    return () => {
      off();
      if (t) clearTimeout(t);
    };
  }, [load, data?.room_id]);

  return (
    <section aria-labelledby="test-wakes-h" className="stack" data-testid="test-wakes">
      <h2 id="test-wakes-h">Test wakes</h2>
      <p className="muted">
        Your private room for test mentions: <code>agent-rooms doctor --wake NAME</code> and the connect dialog’s test send them here, not to a working room. Only you and your agents are in it; it is not in the room list.
      </p>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      {data && data.wakes.length === 0 && <p className="muted">No test wakes yet.</p>}
      {data && data.wakes.length > 0 && (
        <table className="table">
          <caption className="sr-only">Recent test wakes</caption>
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Sent</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {data.wakes.map((w) => (
              <tr key={w.wake_id} data-wake={w.wake_id}>
                <td>{w.handle}</td>
                <td>{formatTime(w.created_at)}</td>
                <td>
                  <span className={`badge ${w.status === 'handled' ? 'ok' : w.status === 'failed' || w.status === 'held' ? 'warn' : ''}`}>{STATUS_WORDS[w.status] ?? w.status}</span>
                  {w.status === 'handled' && typeof w.tool_calls === 'number' && (
                    <span className="muted">{w.tool_calls === 0 ? ', but the agent made no tool call (it did not answer in the room)' : ` with ${w.tool_calls === 1 ? '1 tool call' : `${w.tool_calls} tool calls`}`}</span>
                  )}
                  {w.target === 'pull' && w.status !== 'handled' && <span className="muted"> waiting in the inbox</span>}
                  {(w.cause ?? w.reason) && w.status !== 'handled' && <span className="muted">: {w.cause ?? w.reason}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
