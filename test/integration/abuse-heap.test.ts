import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../helpers/cli-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Sessions opened and never closed by their clients: the idle sweeper closes them all and their
 * memory is released. Measured in a child process with --expose-gc so that the heap figures come
 * after full collections; the child is test/load/abandon.ts, from the run's bundle
 * (test/helpers/cli-bundle.ts) rather than through tsx.
 *
 * 1,000 sessions (it was 2,000): each holds about 34 KiB, so they take about 34 MiB, and what stays
 * after the sweep (about 1 MiB, 3 % of it) is far from the 10 % bound. A session kept after its
 * close (a reference left in a list) keeps 90 % of that memory and fails the bound, with 1,000 as
 * with 2,000 (docs/testing.md "The long files").
 */
const SESSIONS = 1000;

describe('abandoned sessions', () => {
  it(`are swept and their memory released (${SESSIONS.toLocaleString('en')} sessions)`, { timeout: 120_000 }, async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--expose-gc', ...scriptArgs('abandon')],
        { cwd: ROOT, timeout: 110_000, env: { ...process.env, ABANDON_SESSIONS: String(SESSIONS) } },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out.trim().split('\n').pop()!) as {
      sessions: number;
      openAtPeak: number;
      leftAfterSweep: number;
      baseline: number;
      peak: number;
      after: number;
      ms: Record<string, number>;
    };
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    console.log(
      `abandoned sessions: ${r.sessions}; heap baseline ${mb(r.baseline)}, with all open ${mb(r.peak)} (${Math.round((r.peak - r.baseline) / r.sessions)} B/session), after sweep ${mb(r.after)}; ms ${JSON.stringify(r.ms)}`,
    );
    expect(r.openAtPeak).toBe(SESSIONS);
    expect(r.leftAfterSweep).toBe(0);
    // The sessions really held memory, and at least 90 % of it came back.
    expect(r.peak - r.baseline).toBeGreaterThan(r.sessions * 1024);
    expect(r.after - r.baseline).toBeLessThan((r.peak - r.baseline) * 0.1);
  });
});
