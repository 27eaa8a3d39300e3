/**
 * A profiling driver for one tool's per-call work (docs/performance.md, "Per-call work"):
 * the real server on port 0 on this process's main thread, the official client in the bench's
 * load worker thread (so the main thread's profile is the server's alone), `send_message` with
 * a mention called sequentially. Run under the CPU profiler:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/bench/profile-send.ts [calls] [tool]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCore } from '../../src-main/core/start.js';
import { LoadWorker, asAgent, benchRoom, mentionNext } from './baseline.js';

const calls = Number(process.argv[2] ?? 2000);
const tool = process.argv[3] ?? 'send_message';
const home = mkdtempSync(join(tmpdir(), 'agent-rooms-prof-'));
const running = await startCore({ home, port: 0, ownerName: 'Prof Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
try {
  const { room, agents } = await benchRoom(running, 2, { room: 'Prof', device: 'prof' });
  const load = new LoadWorker();
  await load.connect('one', [asAgent(running.mcpUrl, agents[0]!)]);
  const args = tool === 'send_message' ? mentionNext(room, agents)[0]! : {};
  const row = await load.run(tool, 'sequential', 'one', tool, [args], { perClient: calls, warmup: 100 });
  process.stdout.write(
    `${row.calls} ${tool} calls: p50 ${row.p50_ms.toFixed(3)} ms, server event-loop busy ${row.server_us_per_call!.toFixed(0)} us/call, cpu ${row.cpu_us_per_call!.toFixed(0)} us/call\n`,
  );
  await load.close();
} finally {
  await running.close();
  rmSync(home, { recursive: true, force: true });
}
