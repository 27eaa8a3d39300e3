/**
 * The power-loss simulation (test/integration/power-loss.test.ts, test/bench/power-loss.ts): the
 * real server, on a fresh home, runs with shim.c preloaded, which logs every write and sync of
 * `rooms.db` and `rooms.db-wal` with the bytes. An agent sends messages through the official MCP
 * client (one after another, and in bursts of concurrent calls), noting when each answer arrived
 * on the same monotonic clock. The server is SIGKILLed; replay.ts then rebuilds what a power cut
 * at each of many moments would have left on disk, and each image is opened with SQLite, checked
 * and searched for the acknowledged messages.
 *
 * The `drop` image changes only when a sync ends (`changeTimes`), so the cuts include each of
 * those moments and the nanosecond before it: what any cut at all would leave is among the images
 * checked, and a message's exposure (from its acknowledgement to the moment it is on disk for
 * good) is exact, not rounded to the spacing of the cuts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnServer } from '../helpers/child.js';
import { ownerHelpers, sharedValidator, type ApiResponse } from '../helpers/server.js';
import { ImageBuilder, NEVER, TRACED_FILES, changeTimes, readPowerLog, writeImage, type DiskImage, type TracedFile } from './replay.js';
import { mulberry32 } from '../helpers/seeded.js';

const run = promisify(execFile);
const SHIM_SOURCE = fileURLToPath(new URL('./shim.c', import.meta.url));

/** AGENT_ROOMS_SYNCHRONOUS, as start.ts reads it. */
export type PowerLossMode = 'async' | 'group' | 'normal' | 'full';

/** Why the simulation cannot run here (no C compiler), or undefined when it can. */
export async function missingCompiler(): Promise<string | undefined> {
  try {
    await run('cc', ['--version']);
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no C compiler: `cc` is not on PATH' : `\`cc --version\` failed: ${(err as Error).message}`;
  }
}

/** Compiles shim.c into `dir` and returns the shared library's path. */
export async function compileShim(dir: string): Promise<string> {
  const out = join(dir, 'shim.so');
  await run('cc', ['-shared', '-fPIC', '-O2', '-o', out, SHIM_SOURCE, '-ldl', '-lpthread']);
  return out;
}

/** The load: which mode the server runs, and the messages its agent sends. */
export interface LoadOptions {
  mode: PowerLossMode;
  /** Messages to send in all. */
  messages: number;
  /** Sequential calls between two bursts. */
  sequentialRun?: number;
  /** Concurrent calls in a burst: from min to max, picked at random (seeded). */
  burst?: [number, number];
  seed?: number;
}

export interface PowerLossOptions extends LoadOptions {
  /** The compiled shim (compileShim). */
  shim: string;
  /** Cuts spread evenly over the run, beside the ones at every change of the image. */
  spreadCuts?: number;
  /** Acknowledgements (a sample spread over the run) with a cut one nanosecond after them. */
  ackCuts?: number;
  /** Cuts at which a `torn` image is checked as well (each just before a sync ended: the most unsynced writes). */
  tornCuts?: number;
  log?: (line: string) => void;
}

export interface PowerLossReport {
  mode: PowerLossMode;
  acked: number;
  /** Distinct cut moments looked at, and the distinct images they left (each opened and checked once). */
  cuts: number;
  images: number;
  /**
   * Per acknowledged message, in ms: from its acknowledgement to the earliest cut from which on it
   * is in every image. Negative: on disk before the client heard of it. Infinity: lost for good.
   */
  exposureMs: number[];
  /** Messages missing from some image cut after their acknowledgement: the longest such gap for each. */
  lateMisses: Array<{ id: string; afterAckMs: number }>;
  /** Acknowledged messages absent from the image of a cut after every sync. */
  finalMissing: string[];
  /** The most acknowledged messages one cut loses, over every moment of the run. */
  maxLost: number;
  /** Images SQLite could not open, or whose integrity_check was not ok. */
  integrityFailures: string[];
  torn: { checked: number; failures: string[] };
  syncs: Record<TracedFile, number>;
  logBytes: number;
  /** Wall time of the load (first call to the last answer) and of checking the images. */
  loadMs: number;
  checkMs: number;
}

interface Ack {
  id: string;
  ackNs: bigint;
}

/** Messages sent through one MCP session before the next is opened. */
const SESSION_MESSAGES = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (ns: bigint) => Number(ns) / 1e6;

export async function measurePowerLoss(opts: PowerLossOptions): Promise<PowerLossReport> {
  const log = opts.log ?? (() => {});
  const work = mkdtempSync(join(tmpdir(), `ar-power-loss-${opts.mode}-`));
  // The log (and the images) in memory when there is a memory file system: the log's appends
  // (megabytes) stay out of the disk's journal commits that the server's own syncs wait for.
  const logDir = inMemoryDir() ?? work;
  try {
    // A fresh, empty home: every byte of the database goes through the log.
    const home = mkdtempSync(join(work, 'home-'));
    const logFile = join(logDir, 'writes.log');
    const { acks, loadMs } = await driveLoad(opts, home, { shim: opts.shim, log: logFile });
    const started = Date.now();
    const report = check(opts, acks, logFile, join(logDir, 'image'), log);
    return { ...report, loadMs, checkMs: Date.now() - started };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  }
}

function inMemoryDir(): string | undefined {
  try {
    return mkdtempSync('/dev/shm/ar-power-loss-');
  } catch {
    return undefined;
  }
}

/** The same load on a server without the shim: what recording costs (test/bench/power-loss.ts). */
export async function loadWithoutRecorder(opts: LoadOptions): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), `ar-power-loss-${opts.mode}-bare-`));
  try {
    return (await driveLoad(opts, home)).loadMs;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The run on `home`: the server (with the shim when `record` is given), an agent in a room, the
 * messages, a pause, the kill. Returns each acknowledged message with the moment its answer arrived.
 */
async function driveLoad(opts: LoadOptions, home: string, record?: { shim: string; log: string }): Promise<{ acks: Ack[]; loadMs: number }> {
  const server = await spawnServer(home, ['--rate-limit', '0'], {
    ...(record ? { LD_PRELOAD: record.shim, AR_PL_DIR: home, AR_PL_LOG: record.log } : {}),
    AGENT_ROOMS_SYNCHRONOUS: opts.mode,
    // Syncs through libuv's thread pool call fdatasync, which the shim sees; through io_uring they would not.
    UV_USE_IO_URING: '0',
  });
  let client: Client | undefined;
  try {
    const api = async (method: string, path: string, body?: unknown, token = server.ownerToken): Promise<ApiResponse> => {
      const res = await fetch(server.baseUrl + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => undefined), headers: res.headers };
    };
    const owner = ownerHelpers(api);
    const agent = await owner.agent('Power Loss Agent');
    const room = await owner.room('Power loss room');
    await owner.join(room, agent.plate);
    const connect = async (): Promise<Client> => {
      const c = new Client({ name: 'power-loss', version: '1.0.0' }, { jsonSchemaValidator: sharedValidator });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent.credential}` } } }));
      await c.listTools();
      return c;
    };

    const acks: Ack[] = [];
    const send = async (c: Client, n: number) => {
      const r = (await c.callTool({ name: 'send_message', arguments: { room, body: `power-loss ${opts.mode} message ${n}` } })) as {
        isError?: boolean;
        structuredContent?: { message_id?: string };
      };
      // The moment the client heard of the write (CLOCK_MONOTONIC, as the shim's records).
      const ackNs = process.hrtime.bigint();
      if (r.isError || !r.structuredContent?.message_id) throw new Error(`send_message ${n} failed: ${JSON.stringify(r.structuredContent)}`);
      acks.push({ id: r.structuredContent.message_id, ackNs });
    };
    const random = mulberry32(opts.seed ?? 7);
    const sequentialRun = opts.sequentialRun ?? 15;
    const [minBurst, maxBurst] = opts.burst ?? [5, 10];
    client = await connect();
    let sessionFrom = 0;
    const started = Date.now();
    for (let n = 0; n < opts.messages; ) {
      // A new session now and then: undici keeps an abort listener per request on the transport's
      // one signal until garbage collection, and warns past 1500 of them.
      if (n - sessionFrom >= SESSION_MESSAGES) {
        await client.close();
        client = await connect();
        sessionFrom = n;
      }
      const session = client;
      for (let i = 0; i < sequentialRun && n < opts.messages; i++) await send(session, n++);
      const size = Math.min(opts.messages - n, minBurst + Math.floor(random() * (maxBurst - minBurst + 1)));
      await Promise.all(Array.from({ length: size }, () => send(session, n++)));
    }
    const loadMs = Date.now() - started;
    // Time for the syncs an answer did not wait for (async) and a checkpoint or so (normal).
    await sleep(300);
    await server.kill();
    return { acks, loadMs };
  } finally {
    await client?.close().catch(() => {});
    if (server.proc.exitCode === null && server.proc.signalCode === null) await server.kill();
  }
}

interface ImageResult {
  /** Per acknowledged message (by index), whether the image holds it. */
  present: Uint8Array;
  problem?: string;
}

/** Opens an image with SQLite as the next start would: WAL recovery, integrity_check, the acknowledged messages. */
function inspect(dir: string, image: DiskImage, index: Map<string, number>): ImageResult {
  rmSync(dir, { recursive: true, force: true });
  writeImage(dir, image);
  const present = new Uint8Array(index.size);
  let db: Database.Database | undefined;
  try {
    db = new Database(join(dir, 'rooms.db'));
    // The copy is thrown away: closing it needs no sync.
    db.pragma('synchronous = OFF');
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') return { present, problem: `integrity_check: ${String(integrity)}` };
    // An image from before the migrations reached the disk has no messages table yet.
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages'").get()) {
      for (const { id } of db.prepare('SELECT id FROM messages').iterate() as Iterable<{ id: string }>) {
        const i = index.get(id);
        if (i !== undefined) present[i] = 1;
      }
    }
    return { present };
  } catch (err) {
    return { present, problem: `SQLite could not read the image: ${(err as Error).message}` };
  } finally {
    db?.close();
  }
}

function check(opts: PowerLossOptions, unsorted: Ack[], logFile: string, imageDir: string, log: (line: string) => void): Omit<PowerLossReport, 'loadMs' | 'checkMs'> {
  const acks = [...unsorted].sort((a, b) => (a.ackNs < b.ackNs ? -1 : a.ackNs > b.ackNs ? 1 : 0));
  const index = new Map(acks.map((a, i) => [a.id, i]));
  const powerLog = readPowerLog(logFile);
  if (powerLog.files['rooms.db-wal'].mutations.length === 0) throw new Error('the shim recorded no write to rooms.db-wal: was it preloaded?');
  if (powerLog.tornTail) log(`power-loss ${opts.mode}: ${powerLog.tornTail} bytes at the end of the log are not a whole record (ignored)`);
  const builder = new ImageBuilder(powerLog);
  const first = acks[0]!.ackNs;
  const last = powerLog.lastTs;

  // Every moment the image changes and the one just before; an even spread; just after a sample of acks; the end.
  const changes = changeTimes(powerLog);
  const cutSet = new Set<bigint>([0n, NEVER]);
  for (const c of changes) cutSet.add(c).add(c - 1n);
  const spread = opts.spreadCuts ?? 150;
  for (let i = 0; i < spread; i++) cutSet.add(first + ((last - first) * BigInt(i)) / BigInt(Math.max(1, spread - 1)));
  const ackCuts = Math.min(acks.length, opts.ackCuts ?? 60);
  for (let i = 0; i < ackCuts; i++) cutSet.add(acks[Math.floor((i * acks.length) / ackCuts)]!.ackNs + 1n);
  const cuts = [...cutSet].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const results = new Map<string, ImageResult>();
  const resultAt: ImageResult[] = [];
  const integrityFailures: string[] = [];
  for (const t of cuts) {
    const key = builder.key(t);
    let r = results.get(key);
    if (!r) {
      r = inspect(imageDir, builder.image(t), index);
      results.set(key, r);
      if (r.problem) integrityFailures.push(`cut at ${describeCut(t, first)}: ${r.problem}`);
    }
    resultAt.push(r);
  }

  // Losses: at each cut, the messages acknowledged by then that the image lacks.
  const lateNs = new Array<bigint>(acks.length).fill(-1n);
  const lastMissing = new Array<number>(acks.length).fill(-1);
  let maxLost = 0;
  let acked = 0;
  cuts.forEach((t, c) => {
    const { present } = resultAt[c]!;
    while (acked < acks.length && acks[acked]!.ackNs <= t) acked++;
    let lost = 0;
    for (let i = 0; i < acks.length; i++) {
      if (present[i]) continue;
      lastMissing[i] = c;
      if (i < acked) {
        lost++;
        if (t !== NEVER && t - acks[i]!.ackNs > lateNs[i]!) lateNs[i] = t - acks[i]!.ackNs;
      }
    }
    if (lost > maxLost) maxLost = lost;
  });
  // The earliest cut from which on a message is in every image: the one after the last that lacked it.
  const exposureMs = acks.map((a, i) => {
    const next = lastMissing[i]! + 1;
    return next >= cuts.length || cuts[next] === NEVER ? Infinity : ms(cuts[next]! - a.ackNs);
  });
  const finalMissing = acks.filter((_, i) => !resultAt[cuts.length - 1]!.present[i]).map((a) => a.id);
  const lateMisses = acks.flatMap((a, i) => (lateNs[i]! >= 0n ? [{ id: a.id, afterAckMs: ms(lateNs[i]!) }] : []));

  // Torn images: just before some syncs ended, with part of the unsynced writes on disk too.
  const tornFailures: string[] = [];
  const tornCount = Math.min(opts.tornCuts ?? 0, changes.length);
  for (let k = 0; k < tornCount; k++) {
    const t = changes[Math.floor(((k + 0.5) * changes.length) / tornCount)]! - 1n;
    const drop = resultAt[cuts.indexOf(t)]!;
    const torn = inspect(imageDir, builder.image(t, { mode: 'torn', seed: k + 1 }), index);
    const where = `torn cut at ${describeCut(t, first)} (seed ${k + 1})`;
    if (torn.problem) tornFailures.push(`${where}: ${torn.problem}`);
    const lacking = drop.present.reduce((n, p, i) => n + (p && !torn.present[i] ? 1 : 0), 0);
    if (lacking) tornFailures.push(`${where}: lacks ${lacking} messages the drop image holds`);
  }
  rmSync(imageDir, { recursive: true, force: true });

  return {
    mode: opts.mode,
    acked: acks.length,
    cuts: cuts.length,
    images: results.size,
    exposureMs,
    lateMisses,
    finalMissing,
    maxLost,
    integrityFailures,
    torn: { checked: tornCount, failures: tornFailures },
    syncs: powerLog.syncs,
    logBytes: statSync(logFile).size,
  };
}

function describeCut(t: bigint, first: bigint): string {
  return t === NEVER ? 'the end' : `${ms(t - first).toFixed(3)} ms after the first ack`;
}

/** The q-quantile (0..1) of the values, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The report in one line: what was acknowledged, how much was checked, the exposure and the worst cut. */
export function summarize(r: PowerLossReport): string {
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'never');
  return (
    `power-loss ${r.mode}: ${r.acked} messages acknowledged, ${r.cuts} cuts checked (${r.images} distinct images), ` +
    `exposure p50 ${f(quantile(r.exposureMs, 0.5))} ms, p99 ${f(quantile(r.exposureMs, 0.99))} ms, max ${f(Math.max(...r.exposureMs))} ms; ` +
    `a cut at a random moment loses at most ${r.maxLost} acknowledged messages ` +
    `(syncs: ${TRACED_FILES.map((n) => `${n} ${r.syncs[n]}`).join(', ')}; log ${(r.logBytes / 1e6).toFixed(1)} MB; load ${r.loadMs} ms, check ${r.checkMs} ms)`
  );
}
