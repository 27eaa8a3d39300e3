import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * 2,000 MCP sessions opened and never closed by their clients: the idle sweeper closes them
 * all and their memory is released. Measured in a child process with --expose-gc so that the
 * heap figures come after full collections.
 */
describe('abandoned sessions', () => {
  it('are swept and their memory released (2,000 sessions)', { timeout: 120_000 }, async () => {
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', 'test/load/abandon.ts'],
        { cwd: ROOT, timeout: 110_000, env: { ...process.env, ABANDON_SESSIONS: '2000' } },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      ),
    );
    const r = JSON.parse(out.trim().split('\n').pop()!) as { sessions: number; openAtPeak: number; leftAfterSweep: number; baseline: number; peak: number; after: number };
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    console.log(
      `abandoned sessions: ${r.sessions}; heap baseline ${mb(r.baseline)}, with all open ${mb(r.peak)} (${Math.round((r.peak - r.baseline) / r.sessions)} B/session), after sweep ${mb(r.after)}`,
    );
    expect(r.openAtPeak).toBe(2000);
    expect(r.leftAfterSweep).toBe(0);
    // The sessions really held memory, and at least 90 % of it came back.
    expect(r.peak - r.baseline).toBeGreaterThan(r.sessions * 1024);
    expect(r.after - r.baseline).toBeLessThan((r.peak - r.baseline) * 0.1);
  });
});
