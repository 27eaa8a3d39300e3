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
import { LoadWorker, api } from './baseline.js';

const calls = Number(process.argv[2] ?? 2000);
const tool = process.argv[3] ?? 'send_message';
const home = mkdtempSync(join(tmpdir(), 'agent-rooms-prof-'));
const running = await startCore({ home, port: 0, ownerName: 'Prof Owner', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
try {
  const { baseUrl, ownerToken } = running;
  const room = (await api(baseUrl, ownerToken, 'POST', '/v1/rooms', { name: 'Prof' })).room_id as string;
  const agents: Array<{ handle: string; credential: string }> = [];
  for (let i = 0; i < 2; i++) {
    const a = await api(baseUrl, ownerToken, 'POST', '/v1/agents', { name: `Agent ${i}` });
    const c = await api(baseUrl, ownerToken, 'POST', `/v1/agents/${a.plate}/credentials`, { device: 'prof' });
    await api(baseUrl, ownerToken, 'POST', `/v1/rooms/${room}/members`, { plate: a.plate });
    agents.push({ handle: a.handle, credential: c.credential });
  }
  const load = new LoadWorker();
  await load.connect('one', [{ url: running.mcpUrl, headers: { authorization: `Bearer ${agents[0]!.credential}` } }]);
  const args =
    tool === 'send_message' ? { room, body: 'Build is green; please review the diff.', mention_targets: [agents[1]!.handle] } : {};
  const row = await load.run(tool, 'sequential', 'one', tool, [args], { perClient: calls, warmup: 100 });
  process.stdout.write(
    `${row.calls} ${tool} calls: p50 ${row.p50_ms.toFixed(3)} ms, server event-loop busy ${row.server_us_per_call!.toFixed(0)} us/call, cpu ${row.cpu_us_per_call!.toFixed(0)} us/call\n`,
  );
  await load.close();
} finally {
  await running.close();
  rmSync(home, { recursive: true, force: true });
}
