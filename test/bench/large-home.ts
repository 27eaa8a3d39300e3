/**
 * Figures of a large home made by `npm run seed:large` (docs/performance.md, "The large home"):
 * time until the core is ready, RSS, each read (latest messages, check_mentions, the default
 * read_board and list_files, the /v1 board and files, a two-word search), and optionally the
 * search index build as the migration does it on an existing home (`--rebuild-index`: on a copy).
 * Run: `npx tsx test/bench/large-home.ts --home DIR [--rebuild-index]`.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startCore } from '../../src-main/core/start.js';
import { migrate } from '../../src-main/core/db/migrate.js';
import { migration0009 } from '../../src-main/core/db/migrations/0009-search.js';
import { vocabulary } from './seed-large.js';
import { search } from '../../src-main/core/search/service.js';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! * 100) / 100;
}

async function main() {
  const argv = process.argv.slice(2);
  const home = argv[argv.indexOf('--home') + 1];
  if (!home || argv.indexOf('--home') < 0) throw new Error('--home DIR is required');
  const out: Array<{ figure: string; value: string }> = [];
  const say = (figure: string, value: string) => {
    out.push({ figure, value });
    process.stderr.write(`${figure}: ${value}\n`);
  };

  const t0 = performance.now();
  const running = await startCore({ home, port: 0, log: () => {}, rateLimit: { perSecond: 0, burst: 0 } });
  say('ready (open, migrate, listen)', `${(performance.now() - t0).toFixed(0)} ms`);
  say('RSS when ready', `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  const api = async (path: string, init: RequestInit = {}) => {
    const r = await fetch(running.baseUrl + path, { ...init, headers: { authorization: `Bearer ${running.ownerToken}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
    return { status: r.status, text: await r.text() };
  };
  const room = (JSON.parse((await api('/v1/rooms')).text).rooms ?? JSON.parse((await api('/v1/rooms')).text))[0].room_id as string;
  const agents = JSON.parse((await api('/v1/agents')).text);
  const plate = (agents.agents ?? agents)[0].plate as string;
  const cred = JSON.parse((await api(`/v1/agents/${plate}/credentials`, { method: 'POST', body: JSON.stringify({ device: 'large-home' }) })).text);
  const client = new Client({ name: 'large-home', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.mcpUrl), { requestInit: { headers: { authorization: `Bearer ${cred.credential}` } } }));

  const N = 100;
  const measure = async (figure: string, fn: () => Promise<number | void>) => {
    const xs: number[] = [];
    let size = 0;
    for (let i = 0; i < N; i++) {
      const t = performance.now();
      size = (await fn()) ?? 0;
      xs.push(performance.now() - t);
    }
    say(figure, `p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms${size ? `, ${(size / 1024).toFixed(1)} KB` : ''}`);
  };
  const tool = (name: string, args: Record<string, unknown>) => async () => Buffer.byteLength(JSON.stringify(await client.callTool({ name, arguments: args })));
  const http = (path: string) => async () => Buffer.byteLength((await api(path)).text);
  await measure('read_room latest 50', tool('read_room', { room, limit: 50 }));
  await measure('check_mentions', tool('check_mentions', {}));
  await measure('read_board default', tool('read_board', { room }));
  await measure('list_files default', tool('list_files', { room }));
  await measure('GET /v1 board default', http(`/v1/rooms/${room}/board`));
  await measure('GET /v1 files default', http(`/v1/rooms/${room}/files`));

  // Two-word queries: drawn like the generated text draws its words (frequent words far more
  // often: the hard case), and drawn evenly over the vocabulary (mostly rarer words).
  const vocab = vocabulary();
  let seed = 99;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const zipf = () => vocab[Math.floor(vocab.length * Math.pow(rnd(), 2.5))]!;
  const even = () => vocab[Math.floor(vocab.length * rnd())]!;
  for (const [label, draw] of [['two words drawn like the text', zipf], ['two words drawn evenly', even]] as const) {
    const xs: number[] = [];
    let hits = 0;
    const queries: string[] = [];
    for (let i = 0; i < 200; i++) {
      const q = `${draw()} ${draw()}`;
      queries.push(q);
      const t = performance.now();
      const r: any = await client.callTool({ name: 'search', arguments: { room, query: q } });
      xs.push(performance.now() - t);
      hits += r.structuredContent.results.length ? 1 : 0;
    }
    say(`search (MCP), ${label}`, `p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms, max ${pct(xs, 100)} ms (${hits}/200 with results)`);
    // The same queries as the search itself costs in-process (no MCP, no HTTP): on a shared
    // machine this separates the search's own work from the machine's scheduling.
    const own: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      JSON.stringify(search(running.core.db, { rooms: [room], query: q }));
      own.push(performance.now() - t);
    }
    say(`search in-process, ${label}`, `p50 ${pct(own, 50)} ms, p99 ${pct(own, 99)} ms, max ${pct(own, 100)} ms`);
  }
  for (const q of ['flaky spec', 'cart_total checkout', `${vocab[0]} ${vocab[1]}`]) {
    const xs: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await api(`/v1/rooms/${room}/search?q=${encodeURIComponent(q)}`);
      xs.push(performance.now() - t);
    }
    say(`GET …/search "${q}"`, `p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms`);
  }
  say('RSS after the reads', `${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
  await client.close();
  await running.close();

  if (argv.includes('--rebuild-index')) {
    // The index build as the migration runs it on a home from before search: a copy without it.
    const dir = mkdtempSync(join(tmpdir(), 'agent-rooms-reindex-'));
    try {
      copyFileSync(join(home, 'rooms.db'), join(dir, 'rooms.db'));
      const db = new Database(join(dir, 'rooms.db'));
      db.exec('DROP TABLE search_fts; DROP INDEX tasks_lane; DROP INDEX tasks_done;');
      for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search_%'").all() as Array<{ name: string }>) db.exec(`DROP TRIGGER ${t.name}`);
      db.pragma(`user_version = ${migration0009.version - 1}`);
      db.exec('VACUUM');
      const t1 = performance.now();
      migrate(db, Infinity, (l) => process.stderr.write(`  ${l}\n`));
      say('search index build (migration on an existing home)', `${((performance.now() - t1) / 1000).toFixed(1)} s`);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(out.map((o) => `| ${o.figure} | ${o.value} |`).join('\n') + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main()
    .then(() => process.exit(0))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
