import { memo, useEffect, useState, type ReactNode } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { useMembers } from '../stores/rooms';
import { useSession } from '../stores/session';
import { useMessageWakes } from '../stores/message-wakes';
import { useTranscripts } from '../stores/transcripts';
import type { Message, MessageDelivery, PostedMessage, Wake } from '../types';
import { actionOf } from './allowed';

/**
 * Under a message, per mentioned agent, what became of the mention (docs/ui.md "Wake status per
 * message"): read from its wake as the server says it (GET …/deliveries; the send response's
 * `wakes` until that answers). `inbox` "waiting in the inbox" with its reason; `held` with its
 * reason and Release/Drop; `queued`; `running` with the elapsed time (ticking) and, for the
 * agent's own owner, the run's last transcript line, and Stop; `handled`; `failed` with its one-line cause
 * and Retry (the acts the wake's `allowed_actions` list).
 */

/** "45 s", "3 min 5 s", "2 h 4 min". */
function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The time now, every second: only the row that asks re-renders. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

const clip = (s: string, n = 140) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
/** A reason's first line (a stack trace's frames never shown). */
const firstLine = (s: string | null | undefined) => (s ?? '').split('\n')[0]!.trim();

/** The run's last transcript event, followed live: its agent's owner only may read it (the server refuses others). */
function LastLine({ wakeId }: { wakeId: string }) {
  useEffect(() => useTranscripts.getState().follow(wakeId), [wakeId]);
  const last = useTranscripts((s) => s.byWake[wakeId]?.events.at(-1));
  if (!last) return null;
  const text = last.kind === 'tool_call' ? `called ${last.tool ?? 'a tool'}` : last.summary;
  return <span className="ws-last" data-testid="ws-last">{` · ${clip(text)}`}</span>;
}

function Running({ w }: { w: Wake }) {
  const now = useNow();
  const me = useSession((s) => s.me?.owner_id);
  const owner = useMembers((s) => s.rooms[w.room ?? '']?.data?.agents.find((a) => a.plate === w.plate)?.owner.owner_id);
  const from = Date.parse(w.started_at ?? w.created_at ?? '');
  return (
    <>
      <span data-testid="ws-elapsed">running{Number.isFinite(from) ? `, ${elapsed(now - from)}` : ''}</span>
      {owner !== undefined && owner === me && <LastLine wakeId={w.wake_id} />}
    </>
  );
}

/** One act on a wake (Retry, Release, Drop), then the statuses are read again. */
function WakeAct({ w, act, label, roomId }: { w: Wake; act: 'retry' | 'release' | 'drop' | 'stop'; label: string; roomId: string }) {
  const allowed = actionOf(w, act);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  if (!allowed?.ok) return null;
  return (
    <>
      {' '}
      <button
        type="button"
        className="link ws-act"
        disabled={busy}
        aria-label={`${label} the wake of ${w.handle ?? w.plate}`}
        onClick={async () => {
          setBusy(true);
          const r = await client.wakes[act]({ params: { id: w.wake_id } });
          setBusy(false);
          setErr(r.ok ? undefined : describeError(r.error));
          void useMessageWakes.getState().load(roomId);
        }}
      >
        {label}
      </button>
      {err && (
        <span role="alert" className="error-text">
          {' '}
          {err}
        </span>
      )}
    </>
  );
}

function Row({ d, roomId }: { d: MessageDelivery; roomId: string }) {
  const w = d.wake;
  let body: ReactNode;
  switch (d.status) {
    case 'inbox':
      body = <>waiting in the inbox{d.reason ? `: ${d.reason}` : ''}</>;
      break;
    case 'held':
      body = (
        <>
          held{w?.reason || d.reason ? `: ${firstLine(w?.reason ?? d.reason)}` : ''}
          {w && <WakeAct w={w} act="release" label="Release" roomId={roomId} />}
          {w && <WakeAct w={w} act="drop" label="Drop" roomId={roomId} />}
        </>
      );
      break;
    case 'running':
      body = w ? (
        <>
          <Running w={w} />
          <WakeAct w={w} act="stop" label="Stop" roomId={roomId} />
        </>
      ) : (
        <>running</>
      );
      break;
    case 'failed': {
      const cause = w?.cause ?? firstLine(w?.reason ?? d.reason);
      const full = w?.reason ?? d.reason;
      body = (
        <>
          failed{cause ? ': ' : ''}
          {cause && (
            <span className="ws-cause" title={full && full !== cause ? full : undefined}>
              {cause}
            </span>
          )}
          {w && <WakeAct w={w} act="retry" label="Retry" roomId={roomId} />}
        </>
      );
      break;
    }
    case 'merged':
      body = <>merged: answered in the same run as an earlier message</>;
      break;
    default:
      body = <>{d.status}</>;
  }
  return (
    <li className={`ws-${d.status}`} data-status={d.status}>
      <span className="ws-who">{d.handle}</span>: {body}
    </li>
  );
}

export const MentionStatus = memo(function MentionStatus({ m, deliveries }: { m: Message | PostedMessage; deliveries: MessageDelivery[] | undefined }) {
  // Until the statuses answer for a message just sent, what its own response said.
  const sent = 'wakes' in m ? m.wakes : undefined;
  const rows = deliveries ?? sent?.map((w) => ({ ...w, wake: null }));
  if (!rows?.length) return null;
  return (
    <ul className="wake-status" aria-label="What became of the mentions">
      {rows.map((d) => (
        <Row key={d.plate} d={d} roomId={m.room} />
      ))}
    </ul>
  );
});
