import { performance } from 'node:perf_hooks';

/**
 * How long an adversarial request holds the event loop (docs/security.md "No input freezes the
 * server"). The attack runs in this process (the in-process app of test/helpers/app.ts) while a
 * timer ticks every `everyMs`: the longest gap between two ticks (or between the last tick and
 * the attack's end) is the longest time the loop was held, which is exactly how long any other
 * request would have waited.
 *
 * The figures are measurements to print. The tests assert work-bounded facts (steps spent, the
 * refused-as-too-complex answer, rows and characters read), and on time only LOOP_HELD_MAX_MS:
 * far above the 50 ms target so that a machine under heavy load passes, far below the seconds to
 * minutes the old quadratic and exponential code held the loop.
 */
export interface LoopProbe<T> {
  /** The attack's wall-clock duration. */
  attackMs: number;
  /** The longest the event loop was held during the attack. */
  maxHeldMs: number;
  ticks: number;
  result: T;
}

/** The only time bound asserted: 100× the 50 ms target. The old code held the loop for 3 s to minutes. */
export const LOOP_HELD_MAX_MS = 5000;

export async function probeLoop<T>(attack: () => Promise<T>, everyMs = 1): Promise<LoopProbe<T>> {
  let maxHeldMs = 0;
  let ticks = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxHeldMs = Math.max(maxHeldMs, now - last);
    last = now;
    ticks++;
  }, everyMs);
  const t0 = performance.now();
  last = t0;
  let attackMs = 0;
  let result: T;
  try {
    result = await attack();
  } finally {
    const end = performance.now();
    clearInterval(timer);
    maxHeldMs = Math.max(maxHeldMs, end - last);
    attackMs = end - t0;
  }
  return { attackMs, maxHeldMs, ticks, result };
}

/** Prints a probe's figures: `[figure] <name>: attack N ms, event loop held at most M ms`. */
export function report(name: string, p: { attackMs: number; maxHeldMs: number }): void {
  console.log(`[figure] ${name}: attack ${p.attackMs.toFixed(0)} ms, event loop held at most ${p.maxHeldMs.toFixed(0)} ms`);
}
