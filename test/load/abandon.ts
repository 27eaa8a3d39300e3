/**
 * Heap check for abandoned MCP sessions, run as a child with --expose-gc by
 * test/integration/abuse-heap.test.ts: opens N sessions that are never closed, lets the
 * idle sweeper close them, and prints heap figures (after full GCs) as one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../src-main/core/start.js';

const began = Date.now();
const N = Number(process.env.ABANDON_SESSIONS ?? 2000);
/** Sessions opened and swept before the baseline, so JIT and first-use allocations are not counted. */
const WARM_UP = Number(process.env.ABANDON_WARM_UP ?? 200);
/**
 * Small, so the real sweeper ticks every second (its shortest period) and a session opened last is
 * swept a second or two later; held high while sessions are being opened.
 */
const IDLE_MS = 1000;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function heap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await sleep(20);
  }
  return process.memoryUsage().heapUsed;
}

const home = mkdtempSync(join(tmpdir(), 'agent-rooms-abandon-'));
// The session caps (docs/security.md, item 10) are lifted: this measures the sweeper, not the caps.
const running = await startCore({
  home,
  port: 0,
  ownerName: 'Heap',
  sessionIdleMs: IDLE_MS,
  rateLimit: { perSecond: 0, burst: 0 },
  mcpSessionLimits: { perCredential: N + 1000, total: N + 1000 },
  log: () => {},
});
const startedAt = Date.now();
const api = async (method: string, path: string, body?: unknown) =>
  (await fetch(running.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${running.ownerToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((r) => r.json())) as any;
const agent = await api('POST', '/v1/agents', { name: 'Abandoner' });
const cred = (await api('POST', `/v1/agents/${agent.plate}/credentials`, { device: 'heap' })).credential as string;

async function open(k: number) {
  const res = await fetch(`${running.baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${cred}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: k, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abandon', version: '1' } } }),
  });
  await res.text();
  const sid = res.headers.get('mcp-session-id')!;
  if (k % 10) return;
  // Every tenth also makes a tool call, so sessions did real work before they were abandoned.
  const call = await fetch(`${running.baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${cred}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });
  await call.text();
}

async function openMany(n: number) {
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => open(i + j)));
}

async function swept(deadlineMs: number) {
  const end = Date.now() + deadlineMs;
  while (running.core.sessions.size > 0 && Date.now() < end) await sleep(100);
  return running.core.sessions.size;
}

/** Opens n sessions with the sweeper held off, then lets the real sweeper close them all. */
async function abandon(n: number) {
  running.core.config.sessionIdleMs = 10 * 60_000;
  const t0 = Date.now();
  await openMany(n);
  const opened = running.core.sessions.size;
  const h = await heap();
  const t1 = Date.now();
  running.core.config.sessionIdleMs = IDLE_MS;
  const left = await swept(60_000);
  return { opened, h, left, openMs: t1 - t0, sweepMs: Date.now() - t1 };
}

// Warm up (JIT, statement caches, first-session allocations), then the baseline. The warm-up's
// sessions are closed by the sweep itself, called at once instead of on its timer: what is measured
// is the second round, which waits for the real sweeper.
const t0 = Date.now();
running.core.config.sessionIdleMs = 10 * 60_000;
await openMany(WARM_UP);
await running.core.sessions.sweep(0, Date.now() + 1);
if (running.core.sessions.size !== 0) throw new Error(`the warm-up left ${running.core.sessions.size} sessions open`);
const warm = { ms: Date.now() - t0 };
const baseline = await heap();
const r = await abandon(N);
const after = await heap();
await running.close();
rmSync(home, { recursive: true, force: true });
const ms = { start: startedAt - began, warmUp: warm.ms, open: r.openMs, sweep: r.sweepMs };
process.stdout.write(JSON.stringify({ sessions: N, openAtPeak: r.opened, leftAfterSweep: r.left, baseline, peak: r.h, after, ms }) + '\n');
process.exit(0);
