import { performance } from 'node:perf_hooks';

/**
 * How an adversarial request treats everyone else (docs/security.md "No input freezes the
 * server"): while `attack` runs, a trivial request (GET /healthz) goes out every `everyMs`
 * and its latency is recorded. The server of test/helpers/server.ts runs in the test's own
 * process, so a request that holds the event loop delays the probe by exactly that long.
 *
 * Returns the attack's own duration, the worst probe latency, and the attack's result.
 * Figures are measurements to report; tests assert only generous bounds (the machine is shared).
 */
export interface LoopProbe<T> {
  attackMs: number;
  maxLatencyMs: number;
  probes: number;
  result: T;
}

/** Generous bounds for unit tests: a concurrent request within 500 ms, the attack over within 2 s. */
export const PROBE_LATENCY_MAX_MS = 500;
export const PROBE_ATTACK_MAX_MS = 2000;

export async function probeLoop<T>(baseUrl: string, attack: () => Promise<T>, everyMs = 10): Promise<LoopProbe<T>> {
  let maxLatencyMs = 0;
  let probes = 0;
  let stop = false;
  const inFlight: Array<Promise<void>> = [];
  const one = async () => {
    const t0 = performance.now();
    try {
      const r = await fetch(`${baseUrl}/healthz`);
      await r.arrayBuffer();
    } finally {
      maxLatencyMs = Math.max(maxLatencyMs, performance.now() - t0);
      probes++;
    }
  };
  await one(); // warm the connection
  maxLatencyMs = 0;
  probes = 0;
  // The timer itself is delayed by a frozen loop: each tick also counts how late it fired.
  let expected = performance.now() + everyMs;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLatencyMs = Math.max(maxLatencyMs, now - expected);
    expected = now + everyMs;
    if (!stop) inFlight.push(one());
  }, everyMs);
  const t0 = performance.now();
  let attackMs = 0;
  let result: T;
  try {
    result = await attack();
  } finally {
    attackMs = performance.now() - t0;
    stop = true;
    clearInterval(timer);
    await Promise.allSettled(inFlight);
  }
  return { attackMs, maxLatencyMs, probes, result };
}
