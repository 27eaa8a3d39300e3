import { create } from 'zustand';
import type { ApiError } from '../api';
import { client } from '../client';
import type { TranscriptEvent, TranscriptPage } from '../types';

/** A page of a run's transcript the window asks for (the server allows up to 500). */
export const TRANSCRIPT_PAGE = 200;
/** The most events the window keeps of one run: the server keeps at most 2,000 (docs/wakes.md "Live runs"). */
export const TRANSCRIPT_KEEP = 2000;
/** The fewest milliseconds between two reads of one run's transcript while it grows: a burst of events is one read. */
const GATHER_MS = 250;

/** What the window holds of one run's transcript. */
export interface Transcript {
  /** Oldest first, never two with one seq. */
  events: TranscriptEvent[];
  /** Events the server dropped from the front (its bounds), plus any this window let go of its own. */
  dropped: number;
  lastOutputAt: string | null;
  status?: TranscriptPage['status'];
  /** The next page to ask for (`after`), or null once the newest event is here. */
  nextAfter: number | null;
  /** At least one page has been read. */
  loaded: boolean;
  loading: boolean;
  error?: ApiError;
}

interface TranscriptsState {
  byWake: Record<string, Transcript>;
  /**
   * Reads a run's transcript and keeps it up to date: every page up to the newest, then, after
   * each `grew`, only what follows the last event held. Returns the call that stops following.
   */
  follow: (wakeId: string) => () => void;
  /** Reads the first page of an ended run (once); `more` reads the next. */
  open: (wakeId: string) => void;
  more: (wakeId: string) => void;
  /** The live event `wake.transcript`: the run's newest event is `seq`. */
  grew: (wakeId: string, seq: number) => void;
  /** Reads what follows the last event held (a followed run: its end, or a quiet spell). */
  refresh: (wakeId: string) => void;
}

const EMPTY: Transcript = { events: [], dropped: 0, lastOutputAt: null, nextAfter: null, loaded: false, loading: false };

/** Per run: how many views follow it, a read under way, and whether another is owed once it ends. */
const followers = new Map<string, number>();
const inFlight = new Set<string>();
const owed = new Set<string>();
const lastRead = new Map<string, number>();
const timers = new Map<string, ReturnType<typeof setTimeout>>();

function lastSeq(t: Transcript | undefined): number | undefined {
  return t?.events.length ? t.events[t.events.length - 1]!.seq : undefined;
}

/**
 * Appends a page, leaving out what the window already holds (a page read twice) and the oldest
 * beyond the keep. `dropped` counts the events before the first one held: those the server had
 * dropped when the window first read the run, and those the window let go of since.
 */
function merge(held: Transcript, page: TranscriptPage): Transcript {
  const after = lastSeq(held);
  const fresh = after === undefined ? page.events : page.events.filter((e) => e.seq > after);
  let events = fresh.length ? held.events.concat(fresh) : held.events;
  let dropped = held.loaded ? held.dropped : page.dropped;
  if (events.length > TRANSCRIPT_KEEP) {
    dropped += events.length - TRANSCRIPT_KEEP;
    events = events.slice(events.length - TRANSCRIPT_KEEP);
  }
  return { events, dropped, lastOutputAt: page.last_output_at, status: page.status, nextAfter: page.next_after, loaded: true, loading: false };
}

export const useTranscripts = create<TranscriptsState>((set, getState) => {
  const put = (wakeId: string, f: (t: Transcript) => Transcript) => set((s) => ({ byWake: { ...s.byWake, [wakeId]: f(s.byWake[wakeId] ?? EMPTY) } }));

  /**
   * One read after what is held; a followed run reads on until the newest event. Reads of one run
   * never overlap: one asked for while another is under way runs once that one ends.
   */
  async function read(wakeId: string, all: boolean): Promise<void> {
    if (inFlight.has(wakeId)) {
      owed.add(wakeId);
      return;
    }
    inFlight.add(wakeId);
    lastRead.set(wakeId, Date.now());
    try {
      for (let pages = 0; pages < TRANSCRIPT_KEEP / TRANSCRIPT_PAGE + 2; pages++) {
        const held = getState().byWake[wakeId];
        const after = held?.nextAfter ?? lastSeq(held);
        put(wakeId, (t) => ({ ...t, loading: true }));
        const r = await client.wakes.transcript({ params: { id: wakeId }, query: { after, limit: TRANSCRIPT_PAGE } });
        if (!r.ok) {
          put(wakeId, (t) => ({ ...t, loading: false, error: r.error }));
          return;
        }
        put(wakeId, (t) => merge(t, r.data));
        if (!all || r.data.next_after === null) return;
      }
    } finally {
      inFlight.delete(wakeId);
      if (owed.delete(wakeId)) {
        if (followers.get(wakeId)) schedule(wakeId);
        else void read(wakeId, true);
      }
    }
  }

  /** A read of a followed run, no sooner than GATHER_MS after the last one. */
  function schedule(wakeId: string): void {
    if (timers.has(wakeId) || !followers.get(wakeId)) return;
    const wait = Math.max(0, GATHER_MS - (Date.now() - (lastRead.get(wakeId) ?? 0)));
    timers.set(
      wakeId,
      setTimeout(() => {
        timers.delete(wakeId);
        void read(wakeId, true);
      }, wait),
    );
  }

  return {
    byWake: {},
    follow: (wakeId) => {
      followers.set(wakeId, (followers.get(wakeId) ?? 0) + 1);
      if (followers.get(wakeId) === 1) void read(wakeId, true);
      return () => {
        const n = (followers.get(wakeId) ?? 1) - 1;
        if (n > 0) return void followers.set(wakeId, n);
        followers.delete(wakeId);
        const t = timers.get(wakeId);
        if (t) clearTimeout(t);
        timers.delete(wakeId);
      };
    },
    open: (wakeId) => {
      const held = getState().byWake[wakeId];
      if (held?.loaded || held?.loading) return;
      void read(wakeId, false);
    },
    more: (wakeId) => {
      if (getState().byWake[wakeId]?.nextAfter == null) return;
      void read(wakeId, false);
    },
    grew: (wakeId, seq) => {
      if (!followers.get(wakeId)) return;
      const last = lastSeq(getState().byWake[wakeId]);
      if (last !== undefined && seq <= last) return;
      schedule(wakeId);
    },
    refresh: (wakeId) => {
      if (followers.get(wakeId)) schedule(wakeId);
      else if (getState().byWake[wakeId]?.loaded) void read(wakeId, true);
    },
  };
});
