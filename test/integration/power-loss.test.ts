/**
 * What a power cut would take back, measured on the real server (docs/performance.md,
 * "Asynchronous commit"): test/power-loss/run.ts records every write and sync of the database
 * files (shim.c), then rebuilds and opens the image a cut at each moment of the run would leave.
 * GROUP must never lose an acknowledged write; ASYNC may, until the sync that starts with the
 * answer (or at most 25 ms after it, under load) has ended; NORMAL loses them for up to a
 * checkpoint interval, which shows the simulation can fail.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileShim, measurePowerLoss, missingCompiler, summarize, type PowerLossOptions, type PowerLossReport } from '../power-loss/run.js';

const MESSAGES = 300;

const noCompiler = await missingCompiler();

if (noCompiler) {
  console.warn(`power-loss simulation skipped: ${noCompiler}`);
  it.skip(`power-loss simulation skipped: ${noCompiler} (it preloads a shim built from test/power-loss/shim.c)`, () => {});
} else {
  describe('a power cut at any moment of a run of the real server', () => {
    let dir: string;
    let shim: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ar-power-loss-shim-'));
      shim = await compileShim(dir);
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const measure = async (mode: PowerLossOptions['mode'], extra: Partial<PowerLossOptions> = {}): Promise<PowerLossReport> => {
      const r = await measurePowerLoss({ mode, shim, messages: MESSAGES, log: (l) => console.log(l), ...extra });
      console.log(summarize(r));
      // Every image, at every moment, is a database SQLite opens and finds intact.
      expect(r.integrityFailures).toEqual([]);
      expect(r.acked).toBe(MESSAGES);
      return r;
    };

    it('group: every acknowledged message is on disk before its answer arrives; no cut after an answer loses it', async () => {
      const r = await measure('group');
      expect(r.lateMisses).toEqual([]);
      expect(r.exposureMs.filter((e) => e > 0)).toEqual([]);
      expect(r.finalMissing).toEqual([]);
      expect(r.maxLost).toBe(0);
    });

    it('async: every acknowledged message reaches the disk well within a second of its answer; torn images hold what the worst case holds', async () => {
      const r = await measure('async', { tornCuts: 4 });
      expect(r.finalMissing).toEqual([]);
      expect(r.exposureMs.filter((e) => !(e < 1000))).toEqual([]);
      expect(r.torn.checked).toBe(4);
      expect(r.torn.failures).toEqual([]);
    });

    it('normal: the simulation sees acknowledged messages lost by cuts well after their answers', async () => {
      const r = await measure('normal');
      expect(r.lateMisses.filter((m) => m.afterAckMs > 50).length).toBeGreaterThan(0);
    });
  });
}
