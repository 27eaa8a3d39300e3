/**
 * Core benchmark: whoami and send_message (with a mention) against the SDK's bare echo
 * tool: one process, the same official client (in a load worker thread) and transport,
 * alternated in rounds. Run: npx tsx test/bench/core.ts [--clients-process]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startCore } from '../../src-main/core/start.js';
import { BASELINE_NAME, LoadWorker, benchRoom, compareRoundsToBaseline, connectEchoPools, connectPools, formatTable, mentionNext, startEchoBaseline, type BenchRow } from './baseline.js';

export interface CoreBenchOptions {
  /** Calls per round from one client. */
  sequentialCalls?: number;
  concurrentClients?: number;
  /** Calls per round from each of the concurrent clients. */
  perClient?: number;
  /**
   * Rounds of (echo, whoami, send_message), alternated; each row is the median round, each ratio the
   * median of the rounds' ratios. Odd rounds run each mode's three in the reverse order: a machine
   * that speeds up or slows down during a round favours neither echo nor send_message.
   */
  rounds?: number;
  /**
   * The clients in a process of their own (LoadWorker `process`), as agents are, rather than in a
   * worker thread of this one: `npx tsx test/bench/core.ts --clients-process`.
   */
  clientsProcess?: boolean;
  /** Told each round's send_message ratios to echo (core.ts prints them). */
  onRound?: (round: number, p50: number, throughput: number) => void;
}

export async function runCoreBench(opts: CoreBenchOptions = {}): Promise<BenchRow[]> {
  const sequentialCalls = opts.sequentialCalls ?? 600;
  const concurrentClients = opts.concurrentClients ?? 10;
  const perClient = opts.perClient ?? 120;
  const rounds = opts.rounds ?? 5;

  const echo = await startEchoBaseline();
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-bench-'));
  const running = await startCore({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
  const load = new LoadWorker({ process: opts.clientsProcess });
  try {
    const { room, agents } = await benchRoom(running, concurrentClients);
    const echoArgs = await connectEchoPools(load, echo, concurrentClients);
    await connectPools(load, 'ours', running.mcpUrl, agents);

    const whoamiArgs = agents.map(() => ({}));
    const sendArgs = mentionNext(room, agents);
    const concurrent = `${concurrentClients} clients`;
    const plan: Array<[string, string, string, string, Array<Record<string, unknown>>, number]> = [
      [BASELINE_NAME, 'sequential', 'echo-1', 'echo', echoArgs, sequentialCalls],
      ['whoami', 'sequential', 'ours-1', 'whoami', whoamiArgs, sequentialCalls],
      ['send_message + mention', 'sequential', 'ours-1', 'send_message', sendArgs, sequentialCalls],
      [BASELINE_NAME, concurrent, 'echo-n', 'echo', echoArgs, perClient],
      ['whoami', concurrent, 'ours-n', 'whoami', whoamiArgs, perClient],
      ['send_message + mention', concurrent, 'ours-n', 'send_message', sendArgs, perClient],
    ];
    const results = new Map<string, BenchRow[]>();
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? plan : [...plan.slice(0, 3).reverse(), ...plan.slice(3).reverse()];
      for (const [name, mode, pool, tool, args, n] of order) {
        const row = await load.run(name, mode, pool, tool, args, { perClient: n, warmup: round === 0 ? 50 : 5 });
        const key = `${name}|${mode}`;
        results.set(key, [...(results.get(key) ?? []), row]);
      }
      const last = (name: string, mode: string) => results.get(`${name}|${mode}`)!.at(-1)!;
      opts.onRound?.(
        round,
        last('send_message + mention', 'sequential').p50_ms / last(BASELINE_NAME, 'sequential').p50_ms,
        last('send_message + mention', concurrent).calls_per_s / last(BASELINE_NAME, concurrent).calls_per_s,
      );
    }
    return compareRoundsToBaseline(results, BASELINE_NAME);
  } finally {
    await load.close();
    await running.close();
    await echo.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** The issue-28 targets against the echo server of the same run, met or not, in one line (core.ts and `npm run bench` print it). */
export function coreTargets(rows: BenchRow[]): string {
  const seq = rows.find((r) => r.name.startsWith('send_message') && r.mode === 'sequential')!;
  const conc = rows.find((r) => r.name.startsWith('send_message') && r.mode !== 'sequential')!;
  const p50 = seq.p50_vs_baseline!;
  const tput = conc.throughput_vs_baseline!;
  return (
    `targets (vs the SDK echo server in this run): send_message p50 <= 1.0x: ${p50.toFixed(2)}x ${p50 <= 1.0 ? 'met' : 'MISSED'}; ` +
    `send_message throughput with ${conc.mode} >= 1.2x: ${tput.toFixed(2)}x ${tput >= 1.2 ? 'met' : 'MISSED'}`
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const clientsProcess = process.argv.includes('--clients-process');
  process.stderr.write(`clients: ${clientsProcess ? 'a process of their own' : 'a worker thread of this process'}\n`);
  const rows = await runCoreBench({
    clientsProcess,
    onRound: (round, p50, tput) => process.stderr.write(`round ${round + 1}: send_message p50 / echo ${p50.toFixed(2)}x, calls/s with 10 clients / echo ${tput.toFixed(2)}x\n`),
  });
  process.stdout.write(formatTable(rows) + '\n');
  process.stdout.write(`\n${coreTargets(rows)}\n`);
}
