/**
 * What a power cut takes back, per durability mode (docs/performance.md, "Asynchronous commit"):
 * the simulation of test/integration/power-loss.test.ts (test/power-loss/run.ts) with more
 * messages, one table. Exposure: from a message's acknowledgement to the moment it is on disk
 * for good (negative: before the client heard of it). The baseline, run in the same process, is
 * the same load on a server without the recorder: what recording every write costs the run.
 * Run: npx tsx test/bench/power-loss.ts [--messages 1500] [--modes async,group,normal]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileShim, loadWithoutRecorder, measurePowerLoss, missingCompiler, quantile, summarize, type PowerLossMode, type PowerLossReport } from '../power-loss/run.js';

export interface PowerLossBenchRow {
  report: PowerLossReport;
  /** The same load without the shim (the baseline). */
  bareLoadMs: number;
}

export async function runPowerLossBench(opts: { messages?: number; modes?: PowerLossMode[]; log?: (line: string) => void } = {}): Promise<PowerLossBenchRow[]> {
  const reason = await missingCompiler();
  if (reason) throw new Error(`the power-loss bench needs a C compiler: ${reason}`);
  const messages = opts.messages ?? 1500;
  const log = opts.log ?? (() => {});
  const dir = mkdtempSync(join(tmpdir(), 'ar-power-loss-bench-'));
  try {
    const shim = await compileShim(dir);
    const rows: PowerLossBenchRow[] = [];
    for (const mode of opts.modes ?? ['async', 'group', 'normal']) {
      const bareLoadMs = await loadWithoutRecorder({ mode, messages });
      const report = await measurePowerLoss({ mode, shim, messages, tornCuts: 6, log });
      log(summarize(report));
      rows.push({ report, bareLoadMs });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatPowerLossTable(rows: PowerLossBenchRow[]): string {
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'never');
  const head = ['mode', 'acked', 'WAL syncs', 'images', 'exposure p50 ms', 'p99 ms', 'max ms', 'most lost by one cut', 'acks lost >50 ms after', 'integrity', 'torn', 'load ms', 'bare load ms', 'load / bare'];
  const body = rows.map(({ report: r, bareLoadMs }) => [
    r.mode,
    String(r.acked),
    String(r.syncs['rooms.db-wal']),
    String(r.images),
    f(quantile(r.exposureMs, 0.5)),
    f(quantile(r.exposureMs, 0.99)),
    f(Math.max(...r.exposureMs)),
    String(r.maxLost),
    String(r.lateMisses.filter((m) => m.afterAckMs > 50).length),
    r.integrityFailures.length ? `${r.integrityFailures.length} bad` : 'ok',
    r.torn.failures.length ? `${r.torn.failures.length} bad of ${r.torn.checked}` : `ok (${r.torn.checked})`,
    String(r.loadMs),
    String(bareLoadMs),
    `${(r.loadMs / bareLoadMs).toFixed(2)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const rows = await runPowerLossBench({
    messages: arg('--messages') ? Number(arg('--messages')) : undefined,
    modes: arg('--modes')?.split(',') as PowerLossMode[] | undefined,
    log: (l) => process.stderr.write(l + '\n'),
  });
  process.stdout.write(formatPowerLossTable(rows) + '\n');
  for (const { report: r } of rows) for (const p of [...r.integrityFailures, ...r.torn.failures]) process.stdout.write(`${r.mode}: ${p}\n`);
  process.exit(0);
}
