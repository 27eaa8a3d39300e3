/**
 * `npm run seed:large -- --messages 1000000 --tasks 10000 --files 50000 [--lanes 50] [--home DIR]`:
 * builds a large home to measure against (docs/performance.md, "The large home").
 *
 * The owner, agents and room are made by the real server through the human API; the bulk
 * (messages, tasks, files) is written as exact rows in large transactions, the way the store
 * functions write them (same columns, same rules: seq per room, leases only on doing tasks,
 * handoffs on done ones, blobs by sha256, the search index kept by its triggers and the file
 * writer's indexFileText, touchRoom at the end). test/integration/seed-large.test.ts starts
 * the real server on a small generated home and reads it back, so the rows stay in step with
 * the schema. Text is deterministic (a seeded generator): the same options give the same home.
 */
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { startCore } from '../../src-main/core/start.js';
import { openDb } from '../../src-main/core/db/open.js';
import { touchRoom } from '../../src-main/core/rooms/store.js';
import { indexFileText, indexableText } from '../../src-main/core/search/service.js';
import { indexPendingMessages } from '../../src-main/core/search/indexer.js';
import { seqId, ulid } from '../../src-main/core/util/ids.js';
import { mulberry32 } from '../helpers/seeded.js';

export interface SeedOptions {
  home: string;
  messages: number;
  tasks: number;
  files: number;
  lanes: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  home: string;
  room: string;
  plates: string[];
  ownerToken: string;
  seconds: number;
  dbBytes: number;
  /** Words of the generated text, most frequent first (the bench draws queries from them). */
  vocabulary: string[];
}


const TECH = [
  'flaky', 'spec', 'cart_total', 'checkout', 'deploy', 'rollback', 'migration', 'index', 'timeout', 'retry', 'cache', 'queue', 'lease',
  'handoff', 'review', 'merge', 'branch', 'build', 'release', 'latency', 'memory', 'leak', 'crash', 'fixture', 'schema', 'payment',
  'invoice', 'coupon', 'session', 'token', 'webhook', 'parser', 'renderer', 'database', 'snapshot', 'benchmark', 'café', 'naïve',
];
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'su', 'ta', 'ri', 'po', 've', 'zu', 'da', 'fe', 'gi', 'ho', 'ju', 'ba', 'co', 'xe', 'wy', 'qu'];

/** About 4,000 words: tech words spread through the frequency ranks, pseudo-words around them. */
export function vocabulary(): string[] {
  const r = mulberry32(7);
  const words = new Set<string>();
  while (words.size < 4000) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    words.add(w);
  }
  const out = [...words];
  TECH.forEach((t, i) => out.splice(5 + i * 40, 0, t));
  return out;
}

/** Zipf-like: low ranks far more often (rank 0 in about a third of 12-word messages). */
function sentence(r: () => number, vocab: string[], min: number, max: number): string {
  const n = min + Math.floor(r() * (max - min + 1));
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(vocab[Math.floor(vocab.length * Math.pow(r(), 2.5))]!);
  return out.join(' ');
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function seedLarge(o: SeedOptions): Promise<SeedResult> {
  const log = o.log ?? (() => {});
  const t0 = Date.now();
  if (existsSync(join(o.home, 'rooms.db'))) throw new Error(`${o.home} already holds a home; seed:large writes a new one`);
  mkdirSync(o.home, { recursive: true });

  // 1. The people and the room, made by the real server.
  const running = await startCore({ home: o.home, port: 0, ownerName: 'Large Home', log: () => {} });
  const base = running.baseUrl;
  const token = running.ownerToken;
  let room: string;
  const plates: string[] = [];
  let ownerId: string;
  try {
    ownerId = (await api(base, token, 'GET', '/v1/me')).owner_id;
    room = (await api(base, token, 'POST', '/v1/rooms', { name: 'Large room' })).room_id;
    for (let i = 0; i < o.lanes; i++) {
      const a = await api(base, token, 'POST', '/v1/agents', { name: `Agent ${i}` });
      await api(base, token, 'POST', `/v1/rooms/${room}/members`, { plate: a.plate });
      plates.push(a.plate);
    }
  } finally {
    await running.close();
  }

  // 2. The bulk, as exact rows.
  const db = openDb(join(o.home, 'rooms.db'));
  db.pragma('synchronous = OFF');
  const vocab = vocabulary();
  const r = mulberry32(42);
  const now = Date.now();
  const BATCH = 20_000;
  try {
    const msg = db.prepare(
      `INSERT INTO messages (rowid, id, room_id, seq, sender_kind, sender_plate, sender_owner_id, body, mentions, parent_id, created_at)
       VALUES (?, ?, ?, ?, 'agent', ?, ?, ?, '[]', NULL, ?)`,
    );
    // Ids as the server mints them: each carries its row (docs/performance.md, "Ids that carry their row").
    const firstRow = (db.prepare('SELECT COALESCE(MAX(rowid), 0) + 1 AS r FROM messages').get() as { r: number }).r;
    for (let done = 0; done < o.messages; ) {
      const n = Math.min(BATCH, o.messages - done);
      db.transaction(() => {
        for (let i = 0; i < n; i++) {
          const seq = done + i + 1;
          const at = now - (o.messages - seq) * 1000;
          const row = firstRow + seq - 1;
          msg.run(row, seqId('msg', row, at), room, seq, plates[seq % plates.length], ownerId, sentence(r, vocab, 6, 20), at);
        }
      })();
      done += n;
      if (done % 100_000 === 0 || done === o.messages) log(`messages: ${done.toLocaleString('en-US')}`);
    }
    db.prepare('UPDATE rooms SET next_seq = ? WHERE id = ?').run(o.messages + 1, room);
    // Indexed for search as the server's indexer would have by now (search/indexer.ts).
    indexPendingMessages(db);

    const task = db.prepare(
      `INSERT INTO tasks (id, room_id, title, detail, definition_of_done, assignee, sort_order, status, consent_state, lease_instance_id,
         lease_renewed_at, reason, handoff_notes, created_by_kind, created_by_plate, created_by_owner, completed_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'the checks pass', ?, ?, ?, 'auto', ?, ?, ?, ?, 'agent', ?, ?, ?, ?, ?)`,
    );
    const dep = db.prepare('INSERT INTO task_deps (task_id, depends_on) VALUES (?, ?)');
    const ids: string[] = [];
    db.transaction(() => {
      for (let i = 0; i < o.tasks; i++) {
        const at = now - (o.tasks - i) * 60_000;
        const id = `task_${ulid(at)}`;
        const plate = plates[i % plates.length]!;
        // 70% todo, 10% doing, 5% blocked, 15% done.
        const p = r();
        const status = p < 0.7 ? 'todo' : p < 0.8 ? 'doing' : p < 0.85 ? 'blocked' : 'done';
        task.run(
          id, room, sentence(r, vocab, 3, 8), sentence(r, vocab, 10, 40), plate, i % 7, status,
          status === 'doing' ? `seed-session-${i % plates.length}` : null,
          status === 'doing' ? now : null,
          status === 'blocked' ? 'waiting on review' : null,
          status === 'done' ? sentence(r, vocab, 10, 30) : null,
          plate, ownerId,
          status === 'done' ? at + 30_000 : null,
          at, at,
        );
        // Some chains: a todo task now and then waits on an earlier one of its lane.
        if (i >= plates.length && status === 'todo' && r() < 0.05) dep.run(id, ids[i - plates.length]!);
        ids.push(id);
      }
    })();
    log(`tasks: ${o.tasks.toLocaleString('en-US')}`);

    mkdirSync(join(o.home, 'blobs'), { recursive: true });
    const file = db.prepare('INSERT INTO files (id, room_id, path, next_version, created_at, updated_at) VALUES (?, ?, ?, 2, ?, ?)');
    const version = db.prepare(
      `INSERT INTO file_versions (file_id, version, kind, status, quarantine_reason, filename, content_type, size_bytes, sha256,
         uploader_kind, uploader_plate, uploader_owner_id, created_at, ready_at)
       VALUES (?, 1, 'inline', 'ready', NULL, ?, 'text/plain; charset=utf-8', ?, ?, 'agent', ?, ?, ?, ?)`,
    );
    for (let done = 0; done < o.files; ) {
      const n = Math.min(BATCH, o.files - done);
      db.transaction(() => {
        for (let i = done; i < done + n; i++) {
          const at = now - (o.files - i) * 1000;
          const id = `file_${ulid(at)}`;
          const name = `file-${String(i).padStart(6, '0')}.md`;
          const path = `src/mod-${String(i % 100).padStart(3, '0')}/${name}`;
          const bytes = Buffer.from(`# ${name}\n\n${sentence(r, vocab, 20, 60)}\n`);
          const hash = sha(bytes);
          // Blobs as BlobStore lays them out (blobs/ab/abcd…); no fsync per blob: this is a generator.
          mkdirSync(join(o.home, 'blobs', hash.slice(0, 2)), { recursive: true });
          writeFileSync(join(o.home, 'blobs', hash.slice(0, 2), hash), bytes);
          file.run(id, room, path, at, at);
          version.run(id, name, bytes.length, hash, plates[i % plates.length], ownerId, at, at);
          indexFileText(db, id, indexableText(bytes));
        }
      })();
      done += n;
      log(`files: ${done.toLocaleString('en-US')}`);
    }
    db.transaction(() => {
      for (let i = 0; i < 20; i++) {
        db.prepare('INSERT INTO room_decisions (id, room_id, text, created_by, created_at) VALUES (?, ?, ?, ?, ?)').run(
          `dec_${ulid()}`, room, sentence(r, vocab, 8, 20), ownerId, now,
        );
      }
      touchRoom(db, room, ['messages', 'board', 'files', 'decisions']);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  const dbBytes = statSync(join(o.home, 'rooms.db')).size;
  return { home: o.home, room, plates, ownerToken: token, seconds: (Date.now() - t0) / 1000, dbBytes, vocabulary: vocab };
}

function arg(argv: string[], name: string, dflt: number): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const n = Number(argv[i + 1]);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} takes a whole number`);
  return n;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const homeAt = argv.indexOf('--home');
  const home = homeAt >= 0 ? argv[homeAt + 1]! : mkdtempSync(join(tmpdir(), 'agent-rooms-large-'));
  seedLarge({
    home,
    messages: arg(argv, 'messages', 1_000_000),
    tasks: arg(argv, 'tasks', 10_000),
    files: arg(argv, 'files', 50_000),
    lanes: arg(argv, 'lanes', 50),
    log: (l) => process.stderr.write(`${l}\n`),
  })
    .then((s) => {
      process.stdout.write(
        `large home ready in ${s.seconds.toFixed(1)} s: ${s.home} (rooms.db ${(s.dbBytes / 2 ** 20).toFixed(0)} MiB), room ${s.room}, ${s.plates.length} agents\n` +
          `serve it: agent-rooms serve --home ${s.home}\n`,
      );
      process.exit(0);
    })
    .catch((err) => {
      process.stderr.write(`seed:large failed: ${(err as Error).message}\n`);
      process.exit(1);
    });
}
