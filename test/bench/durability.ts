/**
 * The cost of durability: ASYNC (the default: asynchronous commit, the shared fdatasync of the WAL
 * starts as a write is acknowledged), GROUP (group commit, an acknowledged write is on disk after
 * one fdatasync shared by concurrent writes), FULL (SQLite fsyncs at every commit) and NORMAL
 * (no sync before a checkpoint), send_message with a mention, one client and ten, side by side,
 * alternated in rounds, each row the median round, plus the SDK's bare echo as everywhere else.
 * Run: npx tsx test/bench/durability.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startCore, type RunningCore } from '../../src-main/core/start.js';
import type { Synchronous } from '../../src-main/core/db/open.js';
import { BASELINE_NAME, LoadWorker, benchRoom, compareToBaseline, connectEchoPools, connectPools, formatTable, medianOfRounds, mentionNext, startEchoBaseline, type BenchRow } from './baseline.js';

export interface DurabilityBenchOptions {
  sequentialCalls?: number;
  concurrentClients?: number;
  perClient?: number;
  rounds?: number;
}

const MODES = ['ASYNC', 'GROUP', 'FULL', 'NORMAL'] as const;

type Row = BenchRow | { what: string; value: number; unit: string; baseline: string; baseline_value: number; ratio: number };

export async function runDurabilityBench(opts: DurabilityBenchOptions = {}): Promise<Row[]> {
  const sequentialCalls = opts.sequentialCalls ?? 300;
  const concurrentClients = opts.concurrentClients ?? 10;
  const perClient = opts.perClient ?? 60;
  const rounds = opts.rounds ?? 3;
  // No automatic snapshot in the middle of the figures.
  process.env.AGENT_ROOMS_AUTO_BACKUP = 'off';

  const echo = await startEchoBaseline();
  const load = new LoadWorker();
  const cores: Array<{ mode: Synchronous; home: string; running: RunningCore }> = [];
  try {
    const echoArgs = await connectEchoPools(load, echo, concurrentClients);
    const sendArgs: Record<Synchronous, Array<Record<string, unknown>>> = { ASYNC: [], GROUP: [], FULL: [], NORMAL: [] };
    for (const mode of MODES) {
      const home = mkdtempSync(join(tmpdir(), `agent-rooms-bench-sync-${mode.toLowerCase()}-`));
      const running = await startCore({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {}, synchronous: mode });
      cores.push({ mode, home, running });
      const { room, agents } = await benchRoom(running, concurrentClients);
      await connectPools(load, mode, running.mcpUrl, agents);
      sendArgs[mode] = mentionNext(room, agents);
    }
    const concurrent = `${concurrentClients} clients`;
    const plan: Array<[string, string, string, string, Array<Record<string, unknown>>, number]> = [
      [BASELINE_NAME, 'sequential', 'echo-1', 'echo', echoArgs, sequentialCalls],
      ...MODES.map((m) => [`send_message synchronous=${m}`, 'sequential', `${m}-1`, 'send_message', sendArgs[m], sequentialCalls] as (typeof plan)[number]),
      [BASELINE_NAME, concurrent, 'echo-n', 'echo', echoArgs, perClient],
      ...MODES.map((m) => [`send_message synchronous=${m}`, concurrent, `${m}-n`, 'send_message', sendArgs[m], perClient] as (typeof plan)[number]),
    ];
    const results = new Map<string, BenchRow[]>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, mode, pool, tool, args, n] of plan) {
        const row = await load.run(name, mode, pool, tool, args, { perClient: n, warmup: round === 0 ? 30 : 5 });
        results.set(`${name}|${mode}`, [...(results.get(`${name}|${mode}`) ?? []), row]);
      }
    }
    const rows: Row[] = compareToBaseline([...results.values()].map(medianOfRounds), BASELINE_NAME);
    // ASYNC, GROUP and FULL against NORMAL directly: the price of each way to the disk.
    for (const mode of ['sequential', concurrent]) {
      const n = medianOfRounds(results.get(`send_message synchronous=NORMAL|${mode}`)!);
      for (const m of ['ASYNC', 'GROUP', 'FULL'] as const) {
        const f = medianOfRounds(results.get(`send_message synchronous=${m}|${mode}`)!);
        rows.push({ what: `send_message ${m} p50 [${mode}]`, value: f.p50_ms, unit: 'ms', baseline: 'synchronous=NORMAL', baseline_value: n.p50_ms, ratio: f.p50_ms / n.p50_ms });
        rows.push({ what: `send_message ${m} p99 [${mode}]`, value: f.p99_ms, unit: 'ms', baseline: 'synchronous=NORMAL', baseline_value: n.p99_ms, ratio: f.p99_ms / n.p99_ms });
        rows.push({ what: `send_message ${m} throughput [${mode}]`, value: f.calls_per_s, unit: 'calls/s', baseline: 'synchronous=NORMAL', baseline_value: n.calls_per_s, ratio: f.calls_per_s / n.calls_per_s });
      }
    }
    return rows;
  } finally {
    await load.close();
    for (const c of cores) {
      await c.running.close();
      rmSync(c.home, { recursive: true, force: true });
    }
    await echo.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runDurabilityBench();
  process.stdout.write(formatTable(rows.filter((r): r is BenchRow => 'calls_per_s' in r)) + '\n');
  for (const r of rows) if ('what' in r) process.stdout.write(`${r.what}: ${r.value.toFixed(2)} ${r.unit} vs ${r.baseline_value.toFixed(2)} (${r.baseline}), ${r.ratio.toFixed(2)}x\n`);
  process.exit(0);
}
