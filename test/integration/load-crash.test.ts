import { describe, it, expect } from 'vitest';
import { runCrashRecovery } from '../load/crash.js';

/**
 * The short crash-recovery run (the long one is `npm run test:load`, 20 kills): 4 agents in child
 * processes write messages, tasks and files with idempotency keys while the server is SIGKILLed
 * 3 times at random moments and restarted on the same home and port.
 *
 * Three kills (five before): each lands while all four workers write, and retried calls follow each
 * (about a dozen in a run). With the idempotency store's replay taken out, a run of three kills
 * reports messages and tasks stored twice, as five did (docs/testing.md "The long files").
 */
const KILLS = 3;

describe('crash recovery under load', () => {
  it('loses no acknowledged write, does none twice, and leaves every state possible', { timeout: 120_000 }, async () => {
    const report = await runCrashRecovery({ workers: 4, kills: KILLS, minGapMs: 600, maxGapMs: 1600, log: (l) => console.log(l) });
    console.log(JSON.stringify({ ...report, violations: report.violations.slice(0, 20) }, null, 2));
    expect(report.kills).toBe(KILLS);
    // The run did real work across the crashes, and some calls had to be retried.
    expect(report.acked.msg ?? 0).toBeGreaterThanOrEqual(10);
    expect(report.retriedAcks).toBeGreaterThan(0);
    expect(report.acked.finished).toBe(4);
    expect(report.violations.filter((v) => !v.startsWith('(note)'))).toEqual([]);
  });
});
