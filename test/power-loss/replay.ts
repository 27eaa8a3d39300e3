/**
 * What a power cut would leave on disk, rebuilt from the log shim.c records of the server's
 * writes and syncs of `rooms.db` and `rooms.db-wal`.
 *
 * The model: a write (or truncate) to a file is durable at time T when some sync of that file
 * started after it (in log order) and had ended by T. A file's durable writes are therefore a
 * prefix of its writes, growing at the moments syncs end (`changeTimes`). An unlink empties the
 * file from its own moment on, whatever came before it (the folder's own sync is not modelled).
 *
 * `drop` is the worst case, only the durable writes; `torn` adds a seeded random subset of the
 * writes made before T that no sync covered yet, applied in order (the disk may have written
 * some of them back on its own), to check that SQLite's WAL checksums and salts reject what a
 * real disk could leave half done.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../helpers/seeded.js';

export const TRACED_FILES = ['rooms.db', 'rooms.db-wal'] as const;
export type TracedFile = (typeof TRACED_FILES)[number];

const HEADER = 32;
const KIND = { write: 1, truncate: 2, syncStart: 3, syncEnd: 4, unlink: 5 } as const;

/** One change to a file's bytes, in log order. */
interface Mutation {
  kind: 'write' | 'truncate' | 'unlink';
  ts: bigint;
  /** write: where; truncate: the new size. */
  offset: number;
  /** write: the bytes are log[dataStart, dataStart + length). */
  dataStart: number;
  length: number;
}

/** Later than any cut: the image once every sync that ever ended has ended. */
export const NEVER = 1n << 63n;

export interface PowerLog {
  /** The log's bytes: writes' data are read from here, never copied. */
  bytes: Buffer;
  /** Per traced file, its mutations in log order and, beside each, when it became durable (NEVER: not before the cut). */
  files: Record<TracedFile, { mutations: Mutation[]; durableAt: bigint[] }>;
  /** Completed syncs per file (sync-end records). */
  syncs: Record<TracedFile, number>;
  /** Bytes at the end that are not a whole record (the recorder was killed mid-append). */
  tornTail: number;
  firstTs: bigint;
  lastTs: bigint;
}

export function readPowerLog(file: string): PowerLog {
  return parsePowerLog(readFileSync(file));
}

export function parsePowerLog(bytes: Buffer): PowerLog {
  const mutations: Mutation[][] = TRACED_FILES.map(() => []);
  /** Per file, each sync-start: how many of the file's mutations the log held before it, and the sync's id. */
  const starts: Array<Array<{ before: number; id: bigint }>> = TRACED_FILES.map(() => []);
  const ends = new Map<bigint, bigint>();
  const syncs = TRACED_FILES.map(() => 0);
  let firstTs = NEVER;
  let lastTs = 0n;
  let at = 0;
  while (at + HEADER <= bytes.length) {
    const kind = bytes.readUInt32LE(at);
    const file = bytes.readUInt32LE(at + 4);
    const ts = bytes.readBigUInt64LE(at + 8);
    const offset = bytes.readBigInt64LE(at + 16);
    const length = Number(bytes.readBigUInt64LE(at + 24));
    if (file >= TRACED_FILES.length || kind < KIND.write || kind > KIND.unlink) throw new Error(`power-loss log: bad record at byte ${at}`);
    if (at + HEADER + length > bytes.length) break;
    if (ts < firstTs) firstTs = ts;
    if (ts > lastTs) lastTs = ts;
    const list = mutations[file]!;
    if (kind === KIND.write) list.push({ kind: 'write', ts, offset: Number(offset), dataStart: at + HEADER, length });
    else if (kind === KIND.truncate) list.push({ kind: 'truncate', ts, offset: Number(offset), dataStart: 0, length: 0 });
    else if (kind === KIND.unlink) list.push({ kind: 'unlink', ts, offset: 0, dataStart: 0, length: 0 });
    else if (kind === KIND.syncStart) starts[file]!.push({ before: list.length, id: offset });
    else {
      ends.set(offset, ts);
      syncs[file]!++;
    }
    at += HEADER + length;
  }
  const files = {} as PowerLog['files'];
  TRACED_FILES.forEach((name, f) => {
    const list = mutations[f]!;
    const durableAt = new Array<bigint>(list.length);
    // Backwards: the earliest end among the syncs that started after each mutation.
    let earliest = NEVER;
    let s = starts[f]!.length - 1;
    for (let i = list.length - 1; i >= 0; i--) {
      for (; s >= 0 && starts[f]![s]!.before > i; s--) {
        const end = ends.get(starts[f]![s]!.id);
        if (end !== undefined && end < earliest) earliest = end;
      }
      const m = list[i]!;
      // An unlink takes effect at once and wipes what came before it, durable or not.
      if (m.kind === 'unlink' && m.ts < earliest) earliest = m.ts;
      durableAt[i] = earliest;
    }
    files[name] = { mutations: list, durableAt };
  });
  return {
    bytes,
    files,
    syncs: Object.fromEntries(TRACED_FILES.map((name, f) => [name, syncs[f]!])) as Record<TracedFile, number>,
    tornTail: bytes.length - at,
    firstTs: firstTs === NEVER ? 0n : firstTs,
    lastTs,
  };
}

/** The moments the `drop` image changes (a sync ended that covered something new), ascending. */
export function changeTimes(log: PowerLog): bigint[] {
  const times = new Set<bigint>();
  for (const name of TRACED_FILES) for (const t of log.files[name].durableAt) if (t !== NEVER) times.add(t);
  return [...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** How many of the first `n` times (non-decreasing, the i-th read by `at`) are <= t. */
function countUpTo(n: number, t: bigint, at: (i: number) => bigint): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(mid) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A file's bytes as they are built up: a buffer that grows and a size. */
class FileBytes {
  data = Buffer.alloc(0);
  size = 0;

  clone(): FileBytes {
    const c = new FileBytes();
    c.data = Buffer.from(this.data.subarray(0, this.size));
    c.size = this.size;
    return c;
  }

  apply(m: Mutation, log: Buffer): void {
    if (m.kind === 'unlink') {
      this.size = 0;
      return;
    }
    const end = m.kind === 'write' ? m.offset + m.length : m.offset;
    if (end > this.data.length) {
      const grown = Buffer.alloc(Math.max(end, this.data.length * 2));
      this.data.copy(grown, 0, 0, this.size);
      this.data = grown;
    }
    if (m.kind === 'write') {
      // Writing past the end leaves a hole of zeros, as the file system would.
      if (m.offset > this.size) this.data.fill(0, this.size, m.offset);
      log.copy(this.data, m.offset, m.dataStart, m.dataStart + m.length);
      this.size = Math.max(this.size, end);
    } else {
      if (end > this.size) this.data.fill(0, this.size, end);
      this.size = end;
    }
  }

  bytes(): Buffer {
    return this.data.subarray(0, this.size);
  }
}

export type CutMode = 'drop' | 'torn';

/** The files a cut leaves: each file's bytes (a view valid until the next call to the builder). */
export type DiskImage = Record<TracedFile, Buffer>;

/**
 * Builds the image of a cut at any moment. `drop` images are built incrementally: asking for
 * cuts in ascending order applies each write once over the whole run.
 */
export class ImageBuilder {
  private state = TRACED_FILES.map(() => new FileBytes());
  private applied = TRACED_FILES.map(() => 0);

  constructor(private readonly log: PowerLog) {}

  /** How many of each file's writes are durable at t: two cuts with the same key leave the same `drop` image. */
  durableCounts(t: bigint): number[] {
    return TRACED_FILES.map((name) => {
      const { durableAt } = this.log.files[name];
      return countUpTo(durableAt.length, t, (i) => durableAt[i]!);
    });
  }

  key(t: bigint): string {
    return this.durableCounts(t).join(',');
  }

  /** The image a power cut at `t` (ns, CLOCK_MONOTONIC) leaves. `seed` picks the `torn` mode's extra writes. */
  image(t: bigint, opts: { mode?: CutMode; seed?: number } = {}): DiskImage {
    const counts = this.durableCounts(t);
    if (counts.some((n, f) => n < this.applied[f]!)) {
      this.state = TRACED_FILES.map(() => new FileBytes());
      this.applied = TRACED_FILES.map(() => 0);
    }
    TRACED_FILES.forEach((name, f) => {
      const { mutations } = this.log.files[name];
      for (let i = this.applied[f]!; i < counts[f]!; i++) this.state[f]!.apply(mutations[i]!, this.log.bytes);
      this.applied[f] = counts[f]!;
    });
    if ((opts.mode ?? 'drop') === 'drop') return this.view(this.state);
    const random = mulberry32(opts.seed ?? 1);
    const torn = this.state.map((s) => s.clone());
    TRACED_FILES.forEach((name, f) => {
      const { mutations } = this.log.files[name];
      // Log order is time order (shim.c stamps under its lock): the writes made before t are a prefix.
      const madeBefore = countUpTo(mutations.length, t, (i) => mutations[i]!.ts);
      for (let i = counts[f]!; i < madeBefore; i++) if (random() < 0.5) torn[f]!.apply(mutations[i]!, this.log.bytes);
    });
    return this.view(torn);
  }

  private view(files: FileBytes[]): DiskImage {
    return Object.fromEntries(TRACED_FILES.map((name, f) => [name, files[f]!.bytes()])) as DiskImage;
  }
}

/** Writes an image into `dir` as a home's database: `rooms.db`, and `rooms.db-wal` when it holds anything. */
export function writeImage(dir: string, image: DiskImage): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rooms.db'), image['rooms.db']);
  if (image['rooms.db-wal'].length > 0) writeFileSync(join(dir, 'rooms.db-wal'), image['rooms.db-wal']);
}
