/**
 * Benchmark of the paged reads (issue 15, item 4) on a home with 10,000 tasks in 50 lanes and
 * 50,000 files (made by seed:large): the default MCP read_board and list_files (latency beside
 * the bare-echo baseline of this same run, and their size as sent: structured content and its
 * text copy together), the /v1 board and files pages, and the event loop's longest stall while
 * the biggest reads run back to back (perf_hooks.monitorEventLoopDelay), with GET /v1/me timed
 * meanwhile. Run: `npx tsx test/bench/scale.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer } from '../helpers/server.js';
import { benchClient, startEchoBaseline, tableWhenRun } from './baseline.js';
import { seedLarge } from './seed-large.js';
import { readBoard, leaseHandles } from '../../src-main/core/tasks/service.js';
import { listFilesForHumans, listFilesPage } from '../../src-main/core/files/service.js';
import { search } from '../../src-main/core/search/service.js';

export interface ScaleRow {
  bench: string;
  what: string;
  n?: number;
  p50_ms?: number;
  p99_ms?: number;
  baseline_p50_ms?: number;
  baseline_p99_ms?: number;
  value?: number;
  unit?: string;
  baseline?: string;
  baseline_value?: number;
  ratio?: number;
}

const READS = 200;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return Math.round(s[i]! * 100) / 100;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const r = await fn();
  return [performance.now() - t0, r];
}

export async function runScaleBench(log: (line: string) => void = () => {}): Promise<ScaleRow[]> {
  const outer = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-scale-'));
  const home = join(outer, 'home');
  log('seeding 10,000 tasks in 50 lanes and 50,000 files (seed:large)');
  const seeded = await seedLarge({ home, messages: 1000, tasks: 10_000, files: 50_000, lanes: 50 });
  const s = await startTestServer({ home, rateLimit: { perSecond: 0, burst: 0 } });
  const echo = await startEchoBaseline();
  const clients: Client[] = [];
  try {
    const room = seeded.room;
    const cred = await s.api('POST', `/v1/agents/${seeded.plates[0]}/credentials`, { device: 'bench' });
    const reader = await s.connect(cred.body.credential);
    const echoClient = await benchClient(echo.url);
    clients.push(reader, echoClient);
    const rows: ScaleRow[] = [];

    const mcpRead = async (name: string, args: Record<string, unknown>) => {
      const size = Buffer.byteLength(JSON.stringify(await reader.callTool({ name, arguments: args })));
      const xs: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < READS; i++) {
        xs.push((await timed(() => reader.callTool({ name, arguments: args })))[0]);
        base.push((await timed(() => echoClient.callTool({ name: 'echo', arguments: { message: 'x' } })))[0]);
      }
      return { size, xs, base };
    };
    for (const [name, what] of [
      ['read_board', 'read_board default (10,000 tasks, 50 lanes)'],
      ['list_files', 'list_files default (50,000 files)'],
    ] as const) {
      log(what);
      const r = await mcpRead(name, { room });
      rows.push({ bench: name, what, n: READS, p50_ms: pct(r.xs, 50), p99_ms: pct(r.xs, 99), baseline_p50_ms: pct(r.base, 50), baseline_p99_ms: pct(r.base, 99) });
      rows.push({ bench: name, what: `${what} result size as sent`, value: r.size / 1024, unit: 'KB', baseline: '32 KB target', baseline_value: 32, ratio: r.size / 1024 / 32 });
    }

    const httpRead = async (path: string) => {
      const xs: number[] = [];
      let bytes = 0;
      for (let i = 0; i < READS / 2; i++) {
        const [ms, body] = await timed(async () => (await fetch(s.baseUrl + path, { headers: { authorization: `Bearer ${s.ownerToken}` } })).text());
        xs.push(ms);
        bytes = Buffer.byteLength(body);
      }
      return { xs, bytes };
    };
    const echoBase: number[] = [];
    for (let i = 0; i < READS / 2; i++) echoBase.push((await timed(() => echoClient.callTool({ name: 'echo', arguments: { message: 'x' } })))[0]);
    for (const [path, what] of [
      [`/v1/rooms/${room}/board`, 'GET /v1 board default (10 per lane)'],
      [`/v1/rooms/${room}/files`, 'GET /v1 files default (100)'],
    ] as const) {
      log(what);
      const r = await httpRead(path);
      rows.push({ bench: 'http', what: `${what}, ${(r.bytes / 1024).toFixed(0)} KB`, n: READS / 2, p50_ms: pct(r.xs, 50), p99_ms: pct(r.xs, 99), baseline_p50_ms: pct(echoBase, 50), baseline_p99_ms: pct(echoBase, 99) });
    }

    // The biggest reads the API allows, back to back from a worker thread (so the main thread's
    // event loop is the server's alone), while that loop is watched and /v1/me is timed. Three
    // rounds, each beside a baseline of the same length in which only GET /v1/me runs: on a
    // shared machine the OS (and garbage collection) stall the loop too, and the baseline shows
    // how much of the longest stall is the machine's.
    const big = [
      `/v1/rooms/${room}/board?detail=full&limit=200&status=todo,doing,blocked,done,failed,cancelled,archived`,
      `/v1/rooms/${room}/board?limit=200`,
      `/v1/rooms/${room}/files?limit=500`,
      `/v1/search?q=${encodeURIComponent(`${seeded.vocabulary[0]} ${seeded.vocabulary[1]}`)}&limit=100`,
    ];
    const watch = async (data: Record<string, unknown>) => {
      const worker = new Worker(new URL('./big-reads-worker.mjs', import.meta.url), {
        workerData: { base: s.baseUrl, token: s.ownerToken, mcpUrl: s.running.mcpUrl, credential: cred.body.credential, room, ...data },
      });
      await once(worker, 'message');
      const h = monitorEventLoopDelay({ resolution: 5 });
      const t0 = performance.now();
      h.enable();
      worker.postMessage('go');
      const [{ me }] = (await once(worker, 'message')) as [{ me: number[] }];
      h.disable();
      const ms = performance.now() - t0;
      await worker.terminate();
      return { me, ms, max: h.max / 1e6, p99: h.percentile(99) / 1e6 };
    };
    const stalls: number[] = [];
    const idle: number[] = [];
    const p99s: number[] = [];
    let me: number[] = [];
    for (let round = 0; round < 3; round++) {
      log(`event loop while the biggest reads run (round ${round + 1} of 3)`);
      const b = await watch({ paths: big, rounds: 10 });
      const i = await watch({ paths: [], rounds: 0, idleMs: Math.round(b.ms) });
      stalls.push(b.max);
      p99s.push(b.p99);
      idle.push(i.max);
      me = me.concat(b.me);
    }
    const worst = Math.max(...stalls);
    const round2 = (x: number) => Math.round(x * 10) / 10;
    rows.push({ bench: 'event loop', what: `longest event-loop stall during the biggest reads (rounds: ${stalls.map(round2).join(', ')} ms)`, value: worst, unit: 'ms', baseline: '50 ms target', baseline_value: 50, ratio: worst / 50 });
    rows.push({ bench: 'event loop', what: `longest stall meanwhile with only GET /v1/me running (rounds: ${idle.map(round2).join(', ')} ms)`, value: Math.max(...idle), unit: 'ms', baseline: 'the stall with the big reads', baseline_value: worst, ratio: Math.max(...idle) / worst });
    rows.push({ bench: 'event loop', what: 'event-loop delay p99 during the biggest reads (worst round)', value: Math.max(...p99s), unit: 'ms', baseline: '50 ms target', baseline_value: 50, ratio: Math.max(...p99s) / 50 });
    rows.push({ bench: 'http', what: 'GET /v1/me while the biggest reads run', n: me.length, p50_ms: pct(me, 50), p99_ms: pct(me, 99), baseline_p50_ms: pct(echoBase, 50), baseline_p99_ms: pct(echoBase, 99) });

    // What one request holds the event loop for, apart from the machine: the synchronous work of
    // each biggest read alone in this process (the read, its JSON as the route or tool sends it:
    // the tool's text copy and the JSON-RPC envelope too), with nothing else running.
    log('synchronous work of each biggest read');
    const core = s.running.core;
    const owner = (core.db.prepare('SELECT owner_id FROM room_humans WHERE room_id = ? LIMIT 1').get(room) as { owner_id: string }).owner_id;
    const asHttp = (x: unknown) => JSON.stringify(x).length;
    const asTool = (x: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify(x) }], structuredContent: x } }).length;
    const all = ['todo', 'doing', 'blocked', 'done', 'failed', 'cancelled', 'archived'] as const;
    const sync: Array<[string, () => number]> = [
      ['GET …/board?detail=full&limit=200, every status', () => asHttp(readBoard(core.db, room, { detail: 'full', limit: 200, statuses: [...all], instanceHandle: leaseHandles(core) }))],
      ['GET …/board?limit=200', () => asHttp(readBoard(core.db, room, { limit: 200, instanceHandle: leaseHandles(core) }))],
      ['GET …/board default', () => asHttp(readBoard(core.db, room, { instanceHandle: leaseHandles(core) }))],
      ['GET …/files?limit=500', () => asHttp(listFilesForHumans(core, owner, room, { limit: 500 }))],
      ['GET /v1/search, the two most common words, limit=100', () => asHttp(search(core.db, { rooms: [room], query: `${seeded.vocabulary[0]} ${seeded.vocabulary[1]}`, limit: 100 }))],
      ['read_board detail full, limit 200', () => asTool(readBoard(core.db, room, { detail: 'full', limit: 200, instanceHandle: leaseHandles(core) }))],
      ['read_board limit 200', () => asTool(readBoard(core.db, room, { limit: 200, instanceHandle: leaseHandles(core) }))],
      ['list_files limit 500', () => asTool(listFilesPage(core, { kind: 'agent', plate: seeded.plates[0]!, ownerId: owner }, room, { limit: 500 }))],
    ];
    for (const [what, fn] of sync) {
      const xs: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        bytes = fn();
        xs.push(performance.now() - t);
      }
      rows.push({ bench: 'sync', what: `${what} (${(bytes / 1024).toFixed(0)} KB): synchronous work p50 / max of 30`, value: pct(xs, 50), unit: 'ms', baseline: `max ${pct(xs, 100)} ms; 50 ms target`, baseline_value: 50, ratio: pct(xs, 100) / 50 });
    }
    return rows;
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await echo.close();
    await s.stop();
    rmSync(outer, { recursive: true, force: true });
  }
}

tableWhenRun(import.meta.url, runScaleBench);
