import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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
  /**
   * The most CPU time this process used between two ticks: on a machine shared with other work
   * a hold stretches while the process waits for a core, and this is the part that was its own
   * work (all of its threads, so a compiler or GC thread adds to it).
   */
  maxHeldCpuMs: number;
  ticks: number;
  result: T;
}

/** The only time bound asserted: 100× the 50 ms target. The old code held the loop for 3 s to minutes. */
export const LOOP_HELD_MAX_MS = 5000;

export async function probeLoop<T>(attack: () => Promise<T>, everyMs = 1): Promise<LoopProbe<T>> {
  let maxHeldMs = 0;
  let maxHeldCpuMs = 0;
  let ticks = 0;
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  const cpuSince = () => {
    const d = process.cpuUsage(lastCpu);
    return (d.user + d.system) / 1000;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    maxHeldMs = Math.max(maxHeldMs, now - last);
    maxHeldCpuMs = Math.max(maxHeldCpuMs, cpuSince());
    last = now;
    lastCpu = process.cpuUsage();
    ticks++;
  }, everyMs);
  const t0 = performance.now();
  last = t0;
  lastCpu = process.cpuUsage();
  let attackMs = 0;
  let result: T;
  try {
    result = await attack();
  } finally {
    const end = performance.now();
    clearInterval(timer);
    maxHeldMs = Math.max(maxHeldMs, end - last);
    maxHeldCpuMs = Math.max(maxHeldCpuMs, cpuSince());
    attackMs = end - t0;
  }
  return { attackMs, maxHeldMs, maxHeldCpuMs, ticks, result };
}

/** Prints a probe's figures: `[figure] <name>: attack N ms, event loop held at most M ms`. */
export function report(name: string, p: { attackMs: number; maxHeldMs: number }): void {
  console.log(`[figure] ${name}: attack ${p.attackMs.toFixed(0)} ms, event loop held at most ${p.maxHeldMs.toFixed(0)} ms`);
}

/** A cheap request made while an attack ran: did it get an answer, and how long after it was sent. */
export interface RequestProbe {
  status: number;
  /** From sending the request to its whole answer: how long another client waited during the attack. */
  latencyMs: number;
}

export interface LoopAndRequestProbe<T> extends LoopProbe<T> {
  request: RequestProbe & {
    /**
     * It was answered while the attack was still running: the attack let the event loop turn
     * (an order of events, not a time, so a test may assert it).
     */
    answeredBeforeAttackEnded: boolean;
  };
}

/**
 * An HTTP listener in this process answering `GET /healthz` as the real server does (a small JSON
 * 200, no work). It shares the event loop with the in-process app (test/helpers/app.ts), so a
 * request to it made during an attack waits exactly as long as a request to the real server's
 * listener would: while the attack holds the loop, neither can be read nor answered.
 */
export async function startHealthServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const ok = req.url === '/healthz';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { ok: true } : { error: 'not found' }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/healthz`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** GET `url` and read the whole answer, timed from the moment it is sent. */
export async function timedGet(url: string): Promise<RequestProbe> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { status: res.status, latencyMs: performance.now() - t0 };
}

/**
 * probeLoop, plus one concurrent request: `GET url` is sent as the attack starts (before its
 * first synchronous step), so its latency is how long a client that asked at the worst moment
 * waited for a cheap answer. The latency is a figure to print, not a bound (a loaded machine
 * stretches it); what a test may assert is that the request was answered.
 */
export async function probeLoopAndRequest<T>(attack: () => Promise<T>, url: string, everyMs = 1): Promise<LoopAndRequestProbe<T>> {
  // One answered request first: the connection is open (kept alive) before the attack, so the probe measures waiting, not connecting.
  await timedGet(url);
  let request: Promise<RequestProbe> | undefined;
  let attackEnded = false;
  let answeredBeforeAttackEnded = false;
  const p = await probeLoop(() => {
    request = timedGet(url);
    void request.then(() => (answeredBeforeAttackEnded = !attackEnded), () => undefined);
    return attack().finally(() => (attackEnded = true));
  }, everyMs);
  return { ...p, request: { ...(await request!), answeredBeforeAttackEnded } };
}

/**
 * Prints a probe's figures with the concurrent request's: `[figure] <name>: attack N ms, event loop held at most M ms
 * (C ms of CPU), a concurrent GET /healthz answered in K ms`. C is printed when the probe measured it (probeLoop does).
 */
export function reportWithRequest(name: string, p: { attackMs: number; maxHeldMs: number; maxHeldCpuMs?: number; request: RequestProbe }): void {
  const cpu = p.maxHeldCpuMs === undefined ? '' : ` (${p.maxHeldCpuMs.toFixed(0)} ms of CPU)`;
  console.log(
    `[figure] ${name}: attack ${p.attackMs.toFixed(0)} ms, event loop held at most ${p.maxHeldMs.toFixed(0)} ms${cpu}, a concurrent GET /healthz answered in ${p.request.latencyMs.toFixed(0)} ms (HTTP ${p.request.status})`,
  );
}
