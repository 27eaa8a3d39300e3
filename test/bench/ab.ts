/**
 * Before/after in one run (docs/performance.md, "Before and after in one run"): the SDK echo
 * server, the server of another checkout (`--base DIR`, e.g. `git worktree add /tmp/base main`
 * with its node_modules linked) and this checkout's server, all in this process, called by the
 * same load worker in alternated rounds. On a shared machine whose load swings between runs this
 * compares before and after under the same load, which separate runs cannot.
 *   npx tsx test/bench/ab.ts --base DIR [--rounds 5] [--tool send_message|whoami] [--calls 300] [--per-client 60]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LoadWorker, benchRoom, compareRoundsToBaseline, connectEchoPools, connectPools, formatTable, mentionNext, startEchoBaseline, type BenchRow } from './baseline.js';
import { startCore as startOurs } from '../../src-main/core/start.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

const base = arg('base');
if (!base) throw new Error('usage: npx tsx test/bench/ab.ts --base DIR [--rounds N] [--tool send_message|whoami]');
const rounds = Number(arg('rounds') ?? 5);
const tool = arg('tool') ?? 'send_message';
const clients = 10;
const startBase = (await import(pathToFileURL(resolve(base, 'src-main/core/start.ts')).href)).startCore as typeof startOurs;

const echo = await startEchoBaseline();
const load = new LoadWorker();
const homes: string[] = [];
const servers: Array<{ close(): Promise<void> }> = [];
try {
  const pools: Array<[string, typeof startOurs]> = [
    ['before', startBase],
    ['after', startOurs],
  ];
  const argsOf = new Map<string, Array<Record<string, unknown>>>();
  for (const [label, start] of pools) {
    const home = mkdtempSync(join(tmpdir(), `agent-rooms-ab-${label}-`));
    homes.push(home);
    const running = await start({ home, port: 0, ownerName: 'Bench Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
    servers.push(running);
    const { room, agents } = await benchRoom(running, clients);
    await connectPools(load, label, running.mcpUrl, agents);
    argsOf.set(label, tool === 'send_message' ? mentionNext(room, agents) : agents.map(() => ({})));
  }
  const echoArgs = await connectEchoPools(load, echo, clients);

  const plan: Array<[string, string, string, string, Array<Record<string, unknown>>, number]> = [];
  for (const [mode, suffix, n] of [
    ['sequential', '1', Number(arg('calls') ?? 300)],
    [`${clients} clients`, 'n', Number(arg('per-client') ?? 60)],
  ] as const) {
    plan.push(['echo', mode, `echo-${suffix}`, 'echo', echoArgs, n]);
    for (const [label] of pools) plan.push([`${tool} ${label}`, mode, `${label}-${suffix}`, tool, argsOf.get(label)!, n]);
  }
  const results = new Map<string, BenchRow[]>();
  for (let r = 0; r < rounds; r++) {
    // Before and after swap places every round, so neither always runs right after echo.
    const order = r % 2 ? plan.map((p, i) => (i % 3 === 1 ? plan[i + 1]! : i % 3 === 2 ? plan[i - 1]! : p)) : plan;
    for (const [name, mode, pool, t, args, n] of order) {
      const row = await load.run(name, mode, pool, t, args, { perClient: n, warmup: r === 0 ? 30 : 5 });
      results.set(`${name}|${mode}`, [...(results.get(`${name}|${mode}`) ?? []), row]);
    }
  }
  // Each round's ratio against the echo run of the same round and mode, then the median of those.
  const rows = compareRoundsToBaseline(results, 'echo');
  process.stdout.write(`${formatTable(rows)}\n(ratios: median over ${rounds} rounds of each round's ratio to the echo run of the same round)\n`);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const mode of ['sequential', `${clients} clients`]) {
    const b = results.get(`${tool} before|${mode}`)!;
    const a = results.get(`${tool} after|${mode}`)!;
    const p50 = med(a.map((x, i) => x.p50_ms / b[i]!.p50_ms));
    const cps = med(a.map((x, i) => x.calls_per_s / b[i]!.calls_per_s));
    const cpu = med(a.map((x, i) => x.cpu_us_per_call / b[i]!.cpu_us_per_call));
    process.stdout.write(`after / before, ${mode} (median of rounds): p50 ${p50.toFixed(2)}x, calls/s ${cps.toFixed(2)}x, CPU per call ${cpu.toFixed(2)}x\n`);
  }
} finally {
  await load.close();
  for (const s of servers) await s.close();
  await echo.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}
