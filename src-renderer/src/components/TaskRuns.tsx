import { memo, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { describeError } from '../api';
import { client } from '../client';
import { onLiveEvent } from '../live-events';
import { useTranscripts, type Transcript } from '../stores/transcripts';
import type { Task, TranscriptEvent, Wake, Worktree } from '../types';
import { actionOf } from './allowed';
import { CopyButton } from './AgentsView';
import { formatTime } from './time';

/** The most transcript events shown at once; "Show earlier" adds as many again. */
export const SHOWN_EVENTS = 500;
/** A run that printed nothing for this long says so (docs/wakes.md "Live runs"). */
const QUIET_MS = 90_000;

/**
 * The task's wakes, newest first: `?task_id=` when the server filters, else the room's latest
 * wakes filtered here. Read again when `version` moves and when the room's wakes change.
 */
export function useTaskWakes(roomId: string, taskId: string, version: unknown): { wakes: Wake[] | undefined; reload: () => void } {
  const [wakes, setWakes] = useState<Wake[]>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onLiveEvent((type, e) => {
      if (type !== 'wakes.changed' || (e.room && e.room !== roomId) || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        setTick((n) => n + 1);
      }, 250);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [roomId]);
  useEffect(() => {
    let live = true;
    void (async () => {
      let r = await client.wakes.roomLog({ params: { id: roomId }, query: { task_id: taskId, limit: 100 } });
      if (!r.ok) r = await client.wakes.roomLog({ params: { id: roomId }, query: { limit: 500 } });
      if (live && r.ok) setWakes(r.data.wakes.filter((w) => w.task_id === taskId));
    })();
    return () => {
      live = false;
    };
  }, [roomId, taskId, version, tick]);
  return { wakes, reload: () => setTick((n) => n + 1) };
}

/** "45 s", "3 min 5 s", "2 h 4 min". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** The time now, every `ms`: only the component that asks re-renders. */
function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

const KIND_WORDS: Record<TranscriptEvent['kind'], string> = {
  text: 'said',
  tool_call: 'called',
  tool_result: 'tool answered',
  error: 'error',
  result: 'finished',
};

const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) : NaN);

/** One formatter for every transcript line (a new Intl.DateTimeFormat per call costs about a millisecond). */
let seconds: Intl.DateTimeFormat | undefined;
/** A transcript event's moment to the second ("14:05:09"); the date is in its title. */
function clockTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  seconds ??= new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return seconds.format(d);
}

/** A run's failure reason as a person reads it: the whole sentence, without stack frames. */
function readableReason(reason: string): string {
  return reason
    .split('\n')
    .filter((l) => !/^\s+at\s/.test(l))
    .join('\n')
    .trim();
}

/** Plate to handle, from the room's members: a wake record may name its agent by plate alone. */
type Handles = ReadonlyMap<string, string>;
const whoOf = (w: Wake, handles: Handles) => w.handle ?? handles.get(w.plate) ?? w.plate;

/** One event of a transcript; appending events re-renders none of the ones already shown. */
const EventRow = memo(function EventRow({ e }: { e: TranscriptEvent }) {
  return (
    <li className={`tx tx-${e.kind}`} data-kind={e.kind}>
      <time dateTime={e.at} className="muted" title={formatTime(e.at)}>
        {clockTime(e.at)}
      </time>
      <span className="tx-kind">{KIND_WORDS[e.kind] ?? e.kind}</span>
      {e.tool && (
        <>
          {' '}
          <code className="tx-tool">{e.tool}</code>
        </>
      )}
      {e.summary && <span className="tx-summary">{e.kind === 'error' ? <strong>{e.summary}</strong> : e.summary}</span>}
    </li>
  );
});

/** A run's transcript, oldest first; a live one stays scrolled to its newest event unless the reader scrolled up. */
function TranscriptView({ wakeId, t, label, live }: { wakeId: string; t: Transcript | undefined; label: string; live: boolean }) {
  const [shown, setShown] = useState(SHOWN_EVENTS);
  const box = useRef<HTMLOListElement>(null);
  const atBottom = useRef(true);
  const events = t?.events ?? [];
  // A live run shows its latest events; an ended one is read from its start, a page at a time.
  const first = live ? Math.max(0, events.length - shown) : 0;
  const visible = live ? events.slice(first) : events.slice(0, shown);
  const moreHere = !live && (events.length > shown || t?.nextAfter != null);
  useLayoutEffect(() => {
    const el = box.current;
    if (live && el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [events.length, live]);
  if (!t?.loaded) {
    if (t?.error) return <p className={t.error.status === 403 ? 'muted' : 'error-text'}>{t.error.status === 403 ? `No transcript for you: ${t.error.message}.` : `Could not read the transcript: ${describeError(t.error)}`}</p>;
    return <p className="muted">Reading the transcript…</p>;
  }
  return (
    <div className="transcript">
      {t.dropped > 0 && (
        <p className="muted" data-testid="transcript-dropped">
          {t.dropped === 1 ? '1 earlier event dropped' : `${t.dropped.toLocaleString()} earlier events dropped`} (a run keeps its latest 2,000).
        </p>
      )}
      {first > 0 && (
        <button type="button" className="link" onClick={() => setShown((n) => n + SHOWN_EVENTS)}>
          Show earlier events ({first.toLocaleString()} more)
        </button>
      )}
      {events.length === 0 ? (
        <p className="muted">{live ? 'Nothing printed yet.' : 'The run printed nothing.'}</p>
      ) : (
        // Focusable, so the keyboard can scroll it too.
        <ol
          className="plain tx-list"
          aria-label={label}
          ref={box}
          tabIndex={0}
          onScroll={(e) => {
            const el = e.currentTarget;
            atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          }}
        >
          {visible.map((e) => (
            <EventRow key={e.seq} e={e} />
          ))}
        </ol>
      )}
      {moreHere && (
        <button
          type="button"
          disabled={t.loading}
          onClick={() => {
            if (events.length > shown) setShown((n) => n + SHOWN_EVENTS);
            else useTranscripts.getState().more(wakeId);
          }}
        >
          Show more
        </button>
      )}
      {t.error && <p className="error-text">Could not read more of the transcript: {describeError(t.error)}</p>}
    </div>
  );
}

/** Elapsed time and silence of a running run, ticking each second. */
function RunClock({ wake, lastOutputAt }: { wake: Wake; lastOutputAt: string | null }) {
  const now = useNow();
  const started = at(wake.started_at ?? wake.created_at);
  // The later of what the transcript and the wake record say; before any output, the start.
  const printed = [at(lastOutputAt), at(wake.last_output_at)].filter(Number.isFinite);
  const spoke = printed.length ? Math.max(...printed) : at(wake.started_at ?? wake.created_at);
  const quiet = Number.isFinite(spoke) ? now - spoke : 0;
  return (
    <span data-testid="run-clock">
      {quiet >= QUIET_MS && (
        <>
          <span className="badge warn">no output for {Math.floor(quiet / 1000)} s</span>{' '}
        </>
      )}
      <span className="w-running">running{Number.isFinite(started) ? ` for ${duration(now - started)}` : ''}</span>
    </span>
  );
}

function RunningRun({ wake, handles, onChanged }: { wake: Wake; handles: Handles; onChanged: () => void }) {
  const who = whoOf(wake, handles);
  const t = useTranscripts((s) => s.byWake[wake.wake_id]);
  const [err, setErr] = useState<string>();
  const [stopping, setStopping] = useState(false);
  useEffect(() => useTranscripts.getState().follow(wake.wake_id), [wake.wake_id]);
  // A run that prints nothing sends no event: read its quiet spell (and anything missed) now and then.
  useEffect(() => {
    const timer = setInterval(() => useTranscripts.getState().refresh(wake.wake_id), 15_000);
    return () => clearInterval(timer);
  }, [wake.wake_id]);
  const last = t?.events[t.events.length - 1];
  const stop = actionOf(wake, 'stop');
  const name = `${who}${wake.host ? ` (${wake.host})` : ''}`;
  return (
    <article className="run running" aria-label={`Running now: ${name}`}>
      <p className="row wrap">
        <strong>{who}</strong>
        {wake.host && <span className="muted">on {wake.host}</span>}
        <RunClock wake={wake} lastOutputAt={t?.lastOutputAt ?? null} />
        {stop?.ok && (
          <button
            type="button"
            className="danger"
            disabled={stopping}
            onClick={async () => {
              setStopping(true);
              const r = await client.wakes.stop({ params: { id: wake.wake_id } });
              setStopping(false);
              if (r.ok) {
                setErr(undefined);
                useTranscripts.getState().refresh(wake.wake_id);
              } else setErr(describeError(r.error));
              onChanged();
            }}
          >
            Stop
          </button>
        )}
      </p>
      {stop && !stop.ok && <p className="muted">{stop.reason}</p>}
      <p className="run-last" data-testid="run-last">
        {last ? (
          <>
            Last: <span className="tx-kind">{KIND_WORDS[last.kind] ?? last.kind}</span>
            {last.tool && (
              <>
                {' '}
                <code>{last.tool}</code>
              </>
            )}{' '}
            <span className={last.kind === 'error' ? 'error-text' : undefined}>{last.summary}</span>
          </>
        ) : (
          <span className="muted">Nothing printed yet.</span>
        )}
      </p>
      {err && (
        <p role="alert" className="error-text">
          {err}
        </p>
      )}
      <TranscriptView wakeId={wake.wake_id} t={t} label={`Transcript of the run of ${name}`} live />
    </article>
  );
}

const STATUS_WORDS: Record<string, string> = {
  queued: 'waiting to start',
  held: 'held',
  handled: 'handled',
  failed: 'failed',
  merged: 'answered in another run',
};

function EarlierRun({ wake, handles }: { wake: Wake; handles: Handles }) {
  const who = whoOf(wake, handles);
  const [open, setOpen] = useState(false);
  const t = useTranscripts((s) => s.byWake[wake.wake_id]);
  const started = at(wake.started_at);
  const ended = at(wake.ended_at);
  const hasTranscript = wake.target === 'runner' && !!wake.started_at;
  const name = `${who}${wake.host ? ` (${wake.host})` : ''}`;
  const id = `run-${wake.wake_id}`;
  return (
    <li className="run" data-status={wake.status} aria-labelledby={`${id}-h`}>
      <p className="row wrap" id={`${id}-h`}>
        <span className={`status-badge w-${wake.status}`}>{STATUS_WORDS[wake.status] ?? wake.status}</span>
        <strong>{name}</strong>
        <span className="muted">
          {wake.trigger} run, {wake.started_at ? `started ${formatTime(wake.started_at)}` : `queued ${formatTime(wake.created_at)}`}
          {Number.isFinite(started) && Number.isFinite(ended) ? `, took ${duration(ended - started)}` : ''}
        </span>
      </p>
      {wake.reason && <p className={wake.status === 'failed' ? 'run-reason error-text' : 'run-reason'}>{readableReason(wake.reason)}</p>}
      {hasTranscript && (
        <>
          <button
            type="button"
            className="link"
            aria-expanded={open}
            aria-controls={`${id}-tx`}
            onClick={() => {
              if (!open) useTranscripts.getState().open(wake.wake_id);
              setOpen(!open);
            }}
          >
            {open ? 'Hide transcript' : 'Show transcript'}
          </button>
          <div id={`${id}-tx`}>{open && <TranscriptView wakeId={wake.wake_id} t={t} label={`Transcript of the run of ${name}`} live={false} />}</div>
        </>
      )}
    </li>
  );
}

function WorktreeFacts({ task }: { task: Task | undefined }) {
  if (!task || task.worktree === undefined) return null;
  const wt: Worktree | null = task.worktree;
  return (
    <div className="worktree" data-testid="worktree">
      <h4>Worktree</h4>
      {wt ? (
        <dl className="facts wide">
          <div>
            <dt>Branch</dt>
            <dd>
              <code>{wt.branch}</code>
            </dd>
          </div>
          <div>
            <dt>Made from</dt>
            <dd>
              <code>{wt.base_branch}</code> at <code title={wt.base_commit}>{wt.base_commit.slice(0, 8)}</code>
            </dd>
          </div>
          <div>
            <dt>Folder</dt>
            <dd className="row wrap">
              <code className="wt-path">{wt.path}</code> <CopyButton text={wt.path} label="Copy folder path" />
            </dd>
          </div>
        </dl>
      ) : (
        <p className="muted">{task.worktree_reason ?? 'No worktree yet: the first run on this task makes one when the room’s folder is a git repository.'}</p>
      )}
    </div>
  );
}

/**
 * The task's runs (docs/wakes.md "Live runs"): the running one live, with its transcript and
 * Stop; every earlier one with its outcome and transcript; and the worktree the runs work in.
 */
export function TaskRuns({ task, wakes, handles, onChanged }: { task: Task | undefined; wakes: Wake[] | undefined; handles: Handles; onChanged: () => void }) {
  const running = (wakes ?? []).filter((w) => w.status === 'running');
  const earlier = (wakes ?? []).filter((w) => w.status !== 'running');
  // When a followed run ends, read its last events once.
  const wasRunning = useRef(new Set<string>());
  useEffect(() => {
    const now = new Set(running.map((w) => w.wake_id));
    for (const id of wasRunning.current) if (!now.has(id)) useTranscripts.getState().refresh(id);
    wasRunning.current = now;
  });
  return (
    <section className="runs" aria-labelledby="runs-h">
      <h3 id="runs-h">Runs</h3>
      {!wakes ? (
        <p className="muted">Reading the runs…</p>
      ) : (
        <>
          {running.length === 0 && <p className="muted">No run is working on this task now.</p>}
          {running.map((w) => (
            <RunningRun key={w.wake_id} wake={w} handles={handles} onChanged={onChanged} />
          ))}
          <h4 id="runs-earlier-h">Earlier runs</h4>
          {earlier.length === 0 ? (
            <p className="muted">None yet.</p>
          ) : (
            <ol className="plain run-list" aria-labelledby="runs-earlier-h">
              {earlier.map((w) => (
                <EarlierRun key={w.wake_id} wake={w} handles={handles} />
              ))}
            </ol>
          )}
        </>
      )}
      <WorktreeFacts task={task} />
    </section>
  );
}
