/**
 * Wakes benchmark: mention-to-runner-spawn and mention-to-channel-notification latency
 * (p50, p99 over 200 wakes each, one wake at a time so no wake waits in a queue), and
 * get_room_context not_modified calls/s beside the SDK's bare echo tool, same process,
 * same client, same transport. Run: npx tsx test/bench/wakes.ts
 * The dispatcher's cost per wake at 100k ended wakes vs none: npx tsx test/bench/wakes.ts --scale
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startCore, type RunningCore } from '../../src-main/core/start.js';
import { dispatcherOf } from '../../src-main/core/wakes/dispatcher.js';
import {
  BASELINE_NAME,
  benchClient,
  compareToBaseline,
  echoCall,
  formatTable,
  medianOfRounds,
  runLoad,
  startEchoBaseline,
  api,
  type BenchCall,
  type BenchRow,
} from './baseline.js';

export interface WakesBenchOptions {
  /** Wakes measured per latency row. */
  wakes?: number;
  sequentialCalls?: number;
  concurrentClients?: number;
  perClient?: number;
  rounds?: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function latencyRow(name: string, latencies: number[], elapsedS: number, cpu: NodeJS.CpuUsage): BenchRow {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    name,
    mode: 'one wake at a time',
    calls: sorted.length,
    calls_per_s: sorted.length / elapsedS,
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
    cpu_us_per_call: (cpu.user + cpu.system) / sorted.length,
  };
}

/** Resolves when the dispatcher reports the wake of `plate` started (pushed or spawned); fails after 30 s instead of hanging. */
function nextStart(running: RunningCore, plate: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no wake of ${plate} started within 30 s (held by a wake limit?)`));
    }, 30_000);
    const off = running.core.bus.on((e) => {
      const d = e.data as { plate?: string } | undefined;
      if (e.type === 'wake.started' && d?.plate === plate) {
        clearTimeout(timer);
        off();
        resolve(performance.now());
      }
    });
  });
}

async function waitIdle(baseUrl: string, token: string, plate: string): Promise<void> {
  for (;;) {
    const ws = (await api(baseUrl, token, 'GET', `/v1/agents/${plate}/wakes?limit=5`)).wakes as Array<{ status: string }>;
    if (ws.every((w) => w.status !== 'queued' && w.status !== 'running')) return;
    await new Promise((r) => setTimeout(r, 2));
  }
}

export async function runWakesBench(opts: WakesBenchOptions = {}): Promise<BenchRow[]> {
  const wakes = opts.wakes ?? 200;
  const sequentialCalls = opts.sequentialCalls ?? 600;
  const concurrentClients = opts.concurrentClients ?? 10;
  const perClient = opts.perClient ?? 120;
  const rounds = opts.rounds ?? 3;

  const echo = await startEchoBaseline();
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-wakes-'));
  // No wake budget: 200 wakes of one agent would be held after the default 30 an hour (docs/wakes.md).
  const running = await startCore({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {}, wakeBudget: 0 });
  const clients: Client[] = [];
  const { baseUrl, ownerToken } = running;
  const call = (method: string, path: string, body?: unknown) => api(baseUrl, ownerToken, method, path, body);
  const connect = async (url: string, credential?: string) => {
    const c = await benchClient(url, credential ? { authorization: `Bearer ${credential}` } : undefined);
    clients.push(c);
    return c;
  };
  try {
    const room = (await call('POST', '/v1/rooms', { name: 'Bench wakes' })).room_id as string;
    const newAgent = async (name: string) => {
      const a = await call('POST', '/v1/agents', { name });
      const c = await call('POST', `/v1/agents/${a.plate}/credentials`, { device: 'bench' });
      await call('POST', `/v1/rooms/${room}/members`, { plate: a.plate });
      return { plate: a.plate as string, handle: a.handle as string, credential: c.credential as string };
    };
    const rows: BenchRow[] = [];

    // Mention -> runner spawn. The runner exits at once; each wake waits for the previous to end.
    const spawned = await newAgent('Spawned');
    await call('PUT', `/v1/agents/${spawned.plate}/runners/codex`, { command: process.execPath, args: ['-e', ''] });
    {
      const latencies: number[] = [];
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < wakes; i++) {
        const started = nextStart(running, spawned.plate);
        const sent = performance.now();
        await call('POST', `/v1/rooms/${room}/messages`, { body: `run ${i}`, mention_targets: [spawned.handle] });
        latencies.push((await started) - sent);
        await waitIdle(baseUrl, ownerToken, spawned.plate);
      }
      rows.push(latencyRow('mention → runner spawn', latencies, (performance.now() - t0) / 1000, process.cpuUsage(cpu0)));
    }

    // Mention -> channel notification on a live /mcp/claude-code session; it acts to hand the wake back.
    const pushed = await newAgent('Pushed');
    // Opted in to channel delivery (?channels=1): only such sessions are pushed to.
    const cc = await connect(`${baseUrl}/mcp/claude-code?channels=1`, pushed.credential);
    let onPush: (() => void) | undefined;
    cc.fallbackNotificationHandler = async (n) => {
      if (n.method === 'notifications/claude/channel') onPush?.();
    };
    for (;;) {
      const m = await call('GET', `/v1/rooms/${room}/members`);
      if ((m.instances as Array<{ plate: string; streaming: boolean }>).some((x) => x.plate === pushed.plate && x.streaming)) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    {
      const latencies: number[] = [];
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < wakes; i++) {
        const got = new Promise<number>((r) => (onPush = () => r(performance.now())));
        const sent = performance.now();
        await call('POST', `/v1/rooms/${room}/messages`, { body: `push ${i}`, mention_targets: [pushed.handle] });
        latencies.push((await got) - sent);
        const r = await cc.callTool({ name: 'ack_mentions', arguments: { last_mention_seq: Number.MAX_SAFE_INTEGER } });
        if (r.isError) throw new Error(`ack_mentions failed: ${JSON.stringify(r.structuredContent)}`);
        await waitIdle(baseUrl, ownerToken, pushed.plate);
      }
      rows.push(latencyRow('mention → channel notification', latencies, (performance.now() - t0) / 1000, process.cpuUsage(cpu0)));
    }

    // get_room_context not_modified against the bare echo tool.
    const readers = await Promise.all(Array.from({ length: concurrentClients }, (_, i) => newAgent(`Reader ${i}`)));
    const version = (await call('GET', `/v1/rooms/${room}`)).context_version as number;
    const notModified: BenchCall = async (c) => {
      const r = await c.callTool({ name: 'get_room_context', arguments: { room, since_version: version } });
      const sc = r.structuredContent as { not_modified?: boolean } | undefined;
      if (r.isError || !sc?.not_modified) throw new Error(`get_room_context was not not_modified: ${JSON.stringify(sc)}`);
    };
    const echoOne = [await connect(echo.url)];
    const echoMany = await Promise.all(readers.map(() => connect(echo.url)));
    const ours = [await connect(running.mcpUrl, readers[0]!.credential)];
    const oursMany = await Promise.all(readers.map((a) => connect(running.mcpUrl, a.credential)));
    const concurrent = `${concurrentClients} clients`;
    const plan: Array<[string, string, Client[], BenchCall, number]> = [
      [BASELINE_NAME, 'sequential', echoOne, echoCall, sequentialCalls],
      ['get_room_context not_modified', 'sequential', ours, notModified, sequentialCalls],
      [BASELINE_NAME, concurrent, echoMany, echoCall, perClient],
      ['get_room_context not_modified', concurrent, oursMany, notModified, perClient],
    ];
    const results = new Map<string, BenchRow[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, mode, cs, fn, n] of plan) {
        const row = await runLoad(name, mode, cs, fn, { perClient: n, warmup: round === 0 ? 50 : 5 });
        const key = `${name}|${mode}`;
        results.set(key, [...(results.get(key) ?? []), row]);
      }
    }
    return [...rows, ...compareToBaseline([...results.values()].map(medianOfRounds), BASELINE_NAME)];
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await running.close();
    await echo.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * The dispatcher's cost per wake must not grow with the wake log (docs/wakes.md "Wakes you can
 * leave running"): mention -> runner spawn latency, and the CPU of one dispatcher pass, with an
 * empty log and then with `ended` ended wakes (handled/failed, of the same agent and room and of
 * others) and `held` held wakes in it. Prints both and their ratio (1.0 = no growth).
 */
export async function runWakeScaleBench(opts: { wakes?: number; ended?: number; held?: number; passes?: number } = {}): Promise<BenchRow[]> {
  const wakes = opts.wakes ?? 100;
  const ended = opts.ended ?? 100_000;
  const held = opts.held ?? 10_000;
  const passes = opts.passes ?? 2000;
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-wake-scale-'));
  // No budget: the per-hour count is measured too, on every start (the default 30 would hold the runs).
  const running = await startCore({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {}, wakeBudget: 100_000 });
  const { baseUrl, ownerToken, core } = running;
  // A kept-alive socket the server closed while the seeding blocked it is retried once.
  const call = (method: string, path: string, body?: unknown) =>
    api(baseUrl, ownerToken, method, path, body).catch(() => api(baseUrl, ownerToken, method, path, body));
  try {
    const room = (await call('POST', '/v1/rooms', { name: 'Bench wake scale' })).room_id as string;
    const a = await call('POST', '/v1/agents', { name: 'Scaled' });
    await call('POST', `/v1/rooms/${room}/members`, { plate: a.plate });
    await call('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: ['-e', ''] });
    const dispatcher = dispatcherOf(core)!;
    const measure = async (label: string): Promise<BenchRow[]> => {
      const latencies: number[] = [];
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < wakes; i++) {
        const started = nextStart(running, a.plate);
        const sent = performance.now();
        await call('POST', `/v1/rooms/${room}/messages`, { body: `run ${i}`, mention_targets: [a.handle] });
        latencies.push((await started) - sent);
        await waitIdle(baseUrl, ownerToken, a.plate);
      }
      const spawn = latencyRow(`mention → runner spawn, ${label}`, latencies, (performance.now() - t0) / 1000, process.cpuUsage(cpu0));
      // Dispatcher passes with nothing to start: the per-message one, and the full one (pull-parked included).
      const pass = (full: boolean): BenchRow => {
        const passCpu0 = process.cpuUsage();
        const p0 = performance.now();
        for (let i = 0; i < passes; i++) dispatcher.tick(full);
        const passMs = performance.now() - p0;
        const passCpu = process.cpuUsage(passCpu0);
        return {
          name: `dispatcher ${full ? 'full' : 'per-message'} pass, ${label}`,
          mode: 'idle queue',
          calls: passes,
          calls_per_s: passes / (passMs / 1000),
          p50_ms: passMs / passes,
          p99_ms: passMs / passes,
          cpu_us_per_call: (passCpu.user + passCpu.system) / passes,
        };
      };
      return [spawn, pass(false), pass(true)];
    };
    const before = await measure('0 ended wakes');
    // The log grows: ended wakes of this agent and room (the budget's index sees them, started
    // more than an hour ago) and of other queues, and held wakes waiting for a human.
    const old = Date.now() - 2 * 60 * 60 * 1000;
    core.db.transaction(() => {
      const ins = core.db.prepare(
        `INSERT INTO wakes (id, plate, room_id, trigger, content, event_key, status, reason, created_at, started_at, ended_at, target, chain_depth)
         VALUES (?, ?, ?, 'mention', 'x', ?, ?, ?, ?, ?, ?, 'runner', ?)`,
      );
      for (let i = 0; i < ended; i++) ins.run(`wake_old_${i}`, a.plate, room, `old:${i}`, i % 2 ? 'handled' : 'failed', null, old, old, old + 1, 0);
      for (let i = 0; i < held; i++) ins.run(`wake_held_${i}`, a.plate, room, `held:${i}`, 'held', 'loop_guard', old, null, null, 7);
    })();
    await new Promise((r) => setTimeout(r, 1000));
    const after = await measure(`${ended / 1000}k ended + ${held / 1000}k held wakes`);
    const ratio = (x: BenchRow, y: BenchRow) => ({
      name: `${y.name.split(',')[0]}: ratio after / before`,
      mode: 'p50 and cpu per wake',
      calls: y.calls,
      calls_per_s: y.calls_per_s / x.calls_per_s,
      p50_ms: y.p50_ms / x.p50_ms,
      p99_ms: y.p99_ms / x.p99_ms,
      cpu_us_per_call: y.cpu_us_per_call / x.cpu_us_per_call,
    });
    return [...before, ...after, ...before.map((b, i) => ratio(b, after[i]!))];
  } finally {
    await running.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = process.argv.includes('--scale') ? await runWakeScaleBench() : await runWakesBench();
  process.stdout.write(formatTable(rows) + '\n');
}
