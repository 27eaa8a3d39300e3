import { mkdtempSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path';
import { startCore } from '../../src-main/core/start.js';
import { LoadWorker, asAgent, benchRoom, mentionNext } from './baseline.js';
const home = mkdtempSync(join(tmpdir(), 'agent-rooms-cnt-'));
const running = await startCore({ home, port: 0, ownerName: 'Cnt', rateLimit: { perSecond: 0, burst: 0 }, log: () => {} });
const { room, agents } = await benchRoom(running, 2, { room: 'Cnt', device: 'cnt' });
const load = new LoadWorker();
await load.connect('one', [asAgent(running.mcpUrl, agents[0]!)]);
const args = mentionNext(room, agents)[0]!;
await load.run('w', 'sequential', 'one', 'send_message', [args], { perClient: 20, warmup: 5 });
const stmtProto = Object.getPrototypeOf(running.core.db.prepare('SELECT 1'));
const counts = new Map<string, number>();
for (const m of ['get', 'all', 'run', 'iterate']) {
  const orig = stmtProto[m];
  stmtProto[m] = function (...a: unknown[]) { const k = `${this.database.inTransaction ? 'TX  ' : 'AUTO'} ${this.source.replace(/\s+/g, ' ').slice(0, 120)}`; counts.set(k, (counts.get(k) ?? 0) + 1); return orig.apply(this, a); };
}
const N = 200;
await load.run('m', 'sequential', 'one', 'send_message', [args], { perClient: N, warmup: 0 });
for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) console.log((v / N).toFixed(2), k);
await load.close(); await running.close();
