/**
 * `npm run bench`: every benchmark of test/bench/ in one go (core, tasks, files, wakes, hosts, scale, durability: those
 * that exist), printed as one table: each figure, the bare-echo baseline each bench measured
 * in this same run, and their ratio. Options: `--only core,tasks` to run a subset,
 * `--json FILE` to also write the rows as JSON, `--clients-process` to run core's clients in a
 * process of their own (as agents are) rather than a worker thread. See docs/performance.md.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { coreTargets } from './core.js';
import type { BenchRow } from './baseline.js';

/** One line of the combined table. */
export interface Figure {
  bench: string;
  figure: string;
  value: number;
  unit: string;
  baseline: number;
  /** value / baseline, read in the unit's direction (ms: lower is better, per s: higher is better). */
  ratio: number;
}

type AnyRow = Record<string, any>;

/** Turns each bench's own row shape into figures. */
export function toFigures(bench: string, rows: AnyRow[]): Figure[] {
  const out: Figure[] = [];
  for (const r of rows) {
    if ('calls_per_s' in r && 'mode' in r) {
      // test/bench/baseline.ts rows: the echo rows are the baselines of the others, mode by mode.
      if (String(r.name).startsWith('echo')) continue;
      // Rows without an echo run of their own mode (e.g. wake latency) compare with one sequential echo call.
      const same = rows.find((x) => String(x.name).startsWith('echo') && x.mode === r.mode);
      const echo = same ?? rows.find((x) => String(x.name).startsWith('echo') && x.mode === 'sequential');
      if (!echo) continue;
      if (!same) {
        out.push({ bench, figure: `${r.name} [${r.mode}] p50 (vs echo call)`, value: r.p50_ms, unit: 'ms', baseline: echo.p50_ms, ratio: r.p50_ms / echo.p50_ms });
        out.push({ bench, figure: `${r.name} [${r.mode}] p99 (vs echo call)`, value: r.p99_ms, unit: 'ms', baseline: echo.p99_ms, ratio: r.p99_ms / echo.p99_ms });
        continue;
      }
      // A bench that ran rounds gives its ratios itself: the median of each round's ratio to the echo run of that round (baseline.ts).
      out.push({ bench, figure: `${r.name} [${r.mode}] p50`, value: r.p50_ms, unit: 'ms', baseline: echo.p50_ms, ratio: r.p50_vs_baseline ?? r.p50_ms / echo.p50_ms });
      out.push({ bench, figure: `${r.name} [${r.mode}] p99`, value: r.p99_ms, unit: 'ms', baseline: echo.p99_ms, ratio: r.p99_ms / echo.p99_ms });
      out.push({
        bench,
        figure: `${r.name} [${r.mode}] throughput`,
        value: r.calls_per_s,
        unit: 'calls/s',
        baseline: echo.calls_per_s,
        ratio: r.throughput_vs_baseline ?? r.calls_per_s / echo.calls_per_s,
      });
    } else if ('baseline_p50_ms' in r) {
      // test/bench/tasks.ts rows.
      out.push({ bench, figure: `${r.what} p50`, value: r.p50_ms, unit: 'ms', baseline: r.baseline_p50_ms, ratio: r.p50_ms / r.baseline_p50_ms });
      out.push({ bench, figure: `${r.what} p99`, value: r.p99_ms, unit: 'ms', baseline: r.baseline_p99_ms, ratio: r.p99_ms / r.baseline_p99_ms });
    } else if ('baseline_value' in r) {
      // test/bench/files.ts rows.
      out.push({ bench, figure: `${r.what} (vs ${r.baseline})`, value: r.value, unit: r.unit, baseline: r.baseline_value, ratio: r.ratio ?? r.value / r.baseline_value });
    }
  }
  return out;
}

export function formatFigures(figures: Figure[]): string {
  const head = ['bench', 'figure', 'value', 'unit', 'echo baseline', 'ratio'];
  const num = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(3));
  const body = figures.map((f) => [f.bench, f.figure, num(f.value), f.unit, num(f.baseline), `${f.ratio.toFixed(2)}x`]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 || i === 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

const BENCHES: Array<{ name: string; file: string; fn: string }> = [
  { name: 'core', file: 'core.ts', fn: 'runCoreBench' },
  { name: 'tasks', file: 'tasks.ts', fn: 'runTasksBench' },
  { name: 'files', file: 'files.ts', fn: 'runFilesBench' },
  { name: 'wakes', file: 'wakes.ts', fn: 'runWakesBench' },
  { name: 'hosts', file: 'hosts.ts', fn: 'runHostsBench' },
  { name: 'scale', file: 'scale.ts', fn: 'runScaleBench' },
  { name: 'durability', file: 'durability.ts', fn: 'runDurabilityBench' },
];

async function main() {
  const argv = process.argv.slice(2);
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]!.split(',')) : undefined;
  const jsonAt = argv.indexOf('--json');
  const log = (l: string) => process.stderr.write(`  ${l}\n`);
  const figures: Figure[] = [];
  const failed: string[] = [];
  const started = Date.now();
  let targetsLine: string | undefined;
  process.stderr.write(`agent-rooms bench: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB\n`);
  for (const b of BENCHES) {
    if (only && !only.has(b.name)) continue;
    const file = fileURLToPath(new URL(`./${b.file}`, import.meta.url));
    if (!existsSync(file)) {
      process.stderr.write(`${b.name}: not present, skipped\n`);
      continue;
    }
    const t0 = Date.now();
    process.stderr.write(`${b.name}: running…\n`);
    try {
      const mod = (await import(`./${b.file}`)) as Record<string, (arg?: unknown) => Promise<AnyRow[]>>;
      const run = mod[b.fn];
      if (!run) throw new Error(`${b.file} does not export ${b.fn}`);
      // Each bench takes either a logger or an options object; both are optional.
      const options = b.name === 'core' ? { clientsProcess: argv.includes('--clients-process') } : {};
      const rows = run.length === 0 ? await run() : await run(b.name === 'core' || b.name === 'wakes' || b.name === 'durability' ? options : log);
      figures.push(...toFigures(b.name, rows));
      if (b.name === 'core') targetsLine = coreTargets(rows as BenchRow[]);
      process.stderr.write(`${b.name}: done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    } catch (err) {
      failed.push(b.name);
      process.stderr.write(`${b.name}: FAILED: ${(err as Error)?.stack ?? err}\n`);
    }
  }
  process.stdout.write(
    `\n${formatFigures(figures)}\n\nratio = value / echo baseline measured in the same run (ms: lower is better; per second: higher is better; ` +
      `benches that run rounds: the median of each round's ratio). Total ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
  );
  if (targetsLine) process.stdout.write(`${targetsLine}\n`);
  if (jsonAt >= 0) writeFileSync(argv[jsonAt + 1]!, JSON.stringify(figures, null, 2) + '\n');
  if (failed.length) {
    process.stderr.write(`failed: ${failed.join(', ')}\n`);
    process.exit(1);
  }
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  void main();
}
