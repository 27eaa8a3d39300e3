/**
 * The bench harness (test/bench/baseline.ts, core.ts) keeps working: `npm run bench` is not run by
 * the suite, so this runs its pieces at a tiny size. The clients run in a worker thread or, as
 * agents do, in a process of their own (`--clients-process`); the issue-28 table has its six rows
 * with counts and ratios that mean something.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { LoadWorker, startEchoBaseline, connectEchoPools, type EchoBaseline } from '../bench/baseline.js';
import { runCoreBench, coreTargets } from '../bench/core.js';

describe('bench harness', () => {
  let echo: EchoBaseline | undefined;
  afterAll(async () => {
    await echo?.close();
  });

  for (const inProcess of [false, true]) {
    it(`runs the official clients in ${inProcess ? 'a process of their own' : 'a worker thread'}`, async () => {
      echo ??= await startEchoBaseline();
      const load = new LoadWorker({ process: inProcess });
      try {
        if (inProcess) {
          expect(load.pid).toBeTypeOf('number');
          expect(load.pid).not.toBe(process.pid);
        } else {
          expect(load.pid).toBeUndefined();
        }
        const args = await connectEchoPools(load, echo, 3);
        const row = await load.run('echo', '3 clients', 'echo-n', 'echo', args, { perClient: 7, warmup: 2 });
        expect(row.calls).toBe(21);
        expect(row.p50_ms).toBeGreaterThan(0);
        expect(row.p99_ms).toBeGreaterThanOrEqual(row.p50_ms);
        expect(row.client_busy).toBeGreaterThan(0);
        expect(row.client_busy).toBeLessThanOrEqual(1);
        // The clients' CPU counts whichever process they ran in: reported by their own process when apart.
        if (inProcess) {
          expect(row.client_cpu_us_per_call).toBeGreaterThan(0);
          expect(row.cpu_us_per_call).toBeGreaterThan(row.client_cpu_us_per_call!);
        } else {
          expect(row.client_cpu_us_per_call).toBeUndefined();
        }
        // Both are measured; how they compare is a matter of load (on a busy machine wall time per call
        // grows past CPU time), so the harness is checked for giving them, not for their ratio.
        expect(row.cpu_us_per_call).toBeGreaterThan(0);
        expect(row.server_us_per_call).toBeGreaterThan(0);
      } finally {
        await load.close();
      }
    });
  }

  it('core.ts gives its six rows and the targets line, with the clients in their own process', async () => {
    const rows = await runCoreBench({ rounds: 1, sequentialCalls: 12, concurrentClients: 2, perClient: 6, clientsProcess: true });
    expect(rows.map((r) => `${r.name} [${r.mode}] ${r.calls}`)).toEqual([
      'echo (SDK baseline) [sequential] 12',
      'whoami [sequential] 12',
      'send_message + mention [sequential] 12',
      'echo (SDK baseline) [2 clients] 12',
      'whoami [2 clients] 12',
      'send_message + mention [2 clients] 12',
    ]);
    for (const r of rows) {
      expect(r.p50_vs_baseline).toBeGreaterThan(0);
      expect(Number.isFinite(r.throughput_vs_baseline)).toBe(true);
    }
    expect(rows[0]!.p50_vs_baseline).toBe(1);
    expect(coreTargets(rows)).toMatch(/^targets \(vs the SDK echo server in this run\): send_message p50 <= 1\.0x: \d+\.\d\dx (met|MISSED); send_message throughput with 2 clients >= 1\.2x: \d+\.\d\dx (met|MISSED)$/);
  }, 120_000);
});
