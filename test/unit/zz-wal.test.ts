import { it } from 'vitest';
import { readFileSync } from 'node:fs';
import { openTestApp } from '../helpers/app.js';

it('wal frames per send_message', async () => {
  const app = await openTestApp({ database: 'home', background: process.env.BG === '1' });
  const a = await app.agent('A'); const b = await app.agent('B');
  const room = await app.room('R');
  await app.join(room, a.plate); await app.join(room, b.plate);
  const c = await app.connect(a.credential);
  const db = app.core.db;
  for (let i = 0; i < 20; i++) await c.callTool({ name: 'send_message', arguments: { room, body: 'warm up message number ' + i, mention_targets: [b.handle] } });
  await new Promise((r) => setTimeout(r, 200));
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('wal_checkpoint(TRUNCATE)');
  const N = 50;
  for (let i = 0; i < N; i++) { await c.callTool({ name: 'send_message', arguments: { room, body: 'Build is green; please review the diff.', mention_targets: [b.handle] } }); await new Promise((r) => setTimeout(r, 5)); }
  await new Promise((r) => setTimeout(r, 200));
  const wal = readFileSync(app.home + '/rooms.db-wal');
  const pageSize = wal.readUInt32BE(8);
  const counts = new Map<number, number>(); let frames = 0, commits = 0;
  for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) { const pg = wal.readUInt32BE(off); frames++; if (wal.readUInt32BE(off + 4)) commits++; counts.set(pg, (counts.get(pg) ?? 0) + 1); }
  const names = new Map<number, string>();
  for (const r of db.prepare('SELECT name, pageno FROM dbstat').all() as Array<{ name: string; pageno: number }>) names.set(r.pageno, r.name);
  const byName = new Map<string, number>();
  for (const [pg, n] of counts) { const k = names.get(pg) ?? `?${pg}`; byName.set(k, (byName.get(k) ?? 0) + n); }
  console.log('frames/msg', (frames / N).toFixed(1), 'commits/msg', (commits / N).toFixed(2));
  console.log([...byName].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k}=${(v / N).toFixed(2)}`).join('  '));
  await app.stop();
});
