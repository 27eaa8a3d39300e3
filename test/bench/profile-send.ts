/**
 * A profiling driver for one tool's per-call work (docs/performance.md, "Per-call work"):
 * the real server on port 0 on this process's main thread, the official client in the bench's
 * load worker thread (so the main thread's profile is the server's alone), `send_message` with
 * a mention called sequentially, or by `clients` clients at once (each mentioning the next, as in
 * core.ts). Run under the CPU profiler:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/bench/profile-send.ts [calls] [tool] [clients]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../src-main/core/start.js';
import { LoadWorker, asAgent, benchRoom, mentionNext } from './baseline.js';

const calls = Number(process.argv[2] ?? 2000);
const tool = process.argv[3] ?? 'send_message';
const clients = Math.max(1, Number(process.argv[4] ?? 1));
const home = mkdtempSync(join(tmpdir(), 'agent-rooms-prof-'));
const running = await startCore({ home, port: 0, ownerName: 'Prof Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
try {
  const { room, agents } = await benchRoom(running, Math.max(2, clients), { room: 'Prof', device: 'prof' });
  const load = new LoadWorker();
  const callers = agents.slice(0, clients);
  await load.connect('pool', callers.map((a) => asAgent(running.mcpUrl, a)));
  const args = tool === 'send_message' ? mentionNext(room, agents).slice(0, clients) : callers.map(() => ({}));
  const mode = clients === 1 ? 'sequential' : `${clients} clients`;
  const row = await load.run(tool, mode, 'pool', tool, args, { perClient: Math.ceil(calls / clients), warmup: Math.ceil(100 / clients) });
  process.stdout.write(
    `${row.calls} ${tool} calls: p50 ${row.p50_ms.toFixed(3)} ms, server event-loop busy ${row.server_us_per_call!.toFixed(0)} us/call, cpu ${row.cpu_us_per_call!.toFixed(0)} us/call, clients' thread busy ${((row.client_busy ?? 0) * 100).toFixed(0)}%\n`,
  );
  await load.close();
} finally {
  await running.close();
  rmSync(home, { recursive: true, force: true });
}
