import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { immediate } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { TranscriptScanner, type TranscriptEntry, type TranscriptFormat } from './transcript.js';
import type { HostAdapter } from '../hosts/adapter.js';

/**
 * A runner wake's transcript (docs/wakes.md "Live runs"): what the host's machine-readable
 * stream said, as events `{seq, at, kind, tool?, summary}`, stored as the run goes (in small
 * batches, one transaction each) and announced on the events stream (`wake.transcript`).
 * Bounded per wake: the oldest events are dropped beyond TRANSCRIPT_MAX_EVENTS or
 * TRANSCRIPT_MAX_BYTES, and the wake counts how many were (`dropped`).
 */

export const TRANSCRIPT_MAX_EVENTS = 2000;
export const TRANSCRIPT_MAX_BYTES = 1_000_000;
/** How long a batch of events waits before it is written (the stream can print thousands of lines a second). */
const FLUSH_MS = 250;
const FLUSH_EVENTS = 100;

export interface TranscriptRow {
  seq: number;
  at: number;
  kind: TranscriptEntry['kind'];
  tool: string | null;
  summary: string;
}

export function transcriptPage(db: Db, wakeId: string, after: number, limit: number): TranscriptRow[] {
  return stmt(db, 'SELECT seq, at, kind, tool, summary FROM wake_transcripts WHERE wake_id = ? AND seq > ? ORDER BY seq LIMIT ?').all(
    wakeId,
    after,
    limit,
  ) as TranscriptRow[];
}

/** The wake's own counters: events dropped for the bounds, and when its run last printed. */
export function transcriptState(db: Db, wakeId: string): { dropped: number; last_output_at: number | null } {
  return (stmt(db, 'SELECT transcript_dropped AS dropped, last_output_at FROM wakes WHERE id = ?').get(wakeId) as
    | { dropped: number; last_output_at: number | null }
    | undefined) ?? { dropped: 0, last_output_at: null };
}

const bytesOf = (e: { summary: string; tool?: string | null }) => Buffer.byteLength(e.summary) + (e.tool ? Buffer.byteLength(e.tool) : 0) + 32;

/**
 * The transcript of one run as it goes: stdout is fed to the host's scanner, the entries it
 * yields are batched and written, and any output at all moves `last_output_at` (so a run that
 * prints nothing for a while can say so). `note` adds the server's own events (the wake's end).
 */
export class TranscriptWriter {
  private readonly scanner: TranscriptScanner;
  private pending: Array<TranscriptEntry & { at: number }> = [];
  private seq = 0;
  private count = 0;
  private bytes = 0;
  private dropped = 0;
  private lastOutputAt: number | null = null;
  private outputDirty = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The (seq, bytes) of stored events, oldest first: what the bounds drop from. */
  private readonly kept: Array<[number, number]> = [];

  constructor(
    private readonly core: Core,
    private readonly wakeId: string,
    private readonly roomId: string,
    format: TranscriptFormat,
    secrets: readonly string[],
    host?: { adapter: HostAdapter | undefined; server: string },
  ) {
    this.scanner = new TranscriptScanner(format, secrets, host);
  }

  /** The host's words if its output showed the room's tools refused (the run then fails `tools_refused`). */
  toolsRefused(): string | undefined {
    return this.scanner.toolsRefused();
  }

  output(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.closed) return;
    this.lastOutputAt = Date.now();
    this.outputDirty = true;
    if (stream === 'stdout') this.add(this.scanner.push(chunk));
    this.schedule();
  }

  /** An event of the server's own (why the run ended), after what the host said. */
  note(entry: TranscriptEntry): void {
    if (this.closed) return;
    this.add([entry]);
  }

  /** The stream ended: what the scanner still holds, then everything is written. */
  finish(): void {
    if (this.closed) return;
    this.add(this.scanner.end());
    this.flush();
  }

  /** Writes what is pending and stops (the run is over). */
  close(): void {
    this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private add(entries: readonly TranscriptEntry[]): void {
    const at = Date.now();
    for (const e of entries) this.pending.push({ ...e, at });
    if (this.pending.length >= FLUSH_EVENTS) this.flush();
    else this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, FLUSH_MS);
    this.timer.unref();
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.closed || (!this.pending.length && !this.outputDirty)) return;
    const batch = this.pending;
    this.pending = [];
    const { db } = this.core;
    if (!db.open) return;
    const dropBefore = this.dropped;
    try {
      immediate(db, () => {
        for (const e of batch) {
          const seq = ++this.seq;
          const size = bytesOf(e);
          stmt(db, 'INSERT INTO wake_transcripts (wake_id, seq, at, kind, tool, summary, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
            this.wakeId,
            seq,
            e.at,
            e.kind,
            e.tool ?? null,
            e.summary,
            size,
          );
          this.kept.push([seq, size]);
          this.count++;
          this.bytes += size;
        }
        let dropTo = 0;
        while (this.kept.length > 1 && (this.count > TRANSCRIPT_MAX_EVENTS || this.bytes > TRANSCRIPT_MAX_BYTES)) {
          const [seq, size] = this.kept.shift()!;
          dropTo = seq;
          this.count--;
          this.bytes -= size;
          this.dropped++;
        }
        if (dropTo) stmt(db, 'DELETE FROM wake_transcripts WHERE wake_id = ? AND seq <= ?').run(this.wakeId, dropTo);
        if (this.outputDirty || this.dropped !== dropBefore) {
          stmt(db, 'UPDATE wakes SET last_output_at = ?, transcript_dropped = ? WHERE id = ?').run(this.lastOutputAt, this.dropped, this.wakeId);
        }
      });
    } catch (err) {
      this.core.config.log(`transcript of wake ${this.wakeId} not written: ${(err as Error).message}`);
      return;
    }
    this.outputDirty = false;
    if (batch.length) this.core.bus.emit({ type: 'wake.transcript', room: this.roomId, data: { wake_id: this.wakeId, seq: this.seq }, dispatch: false });
  }
}
