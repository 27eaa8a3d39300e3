/**
 * The large-home generator (npm run seed:large) writes exact rows: this keeps them in step with
 * the schema. A small home is generated, checked by SQLite (integrity, foreign keys), then served
 * by the real core (in process, on that home's rooms.db) and read back through the tools and the human API.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { seedLarge } from '../bench/seed-large.js';
import { ok } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

describe('seed:large', () => {
  const outer = mkdtempSync(join(tmpdir(), 'agent-rooms-seed-'));
  let s: TestApp | undefined;
  afterAll(async () => {
    await s?.stop();
    rmSync(outer, { recursive: true, force: true });
  });

  it('generates a home that SQLite accepts and the real core serves in full', async () => {
    const home = join(outer, 'home');
    const seeded = await seedLarge({ home, messages: 700, tasks: 150, files: 60, lanes: 5 });
    const db = new Database(join(home, 'rooms.db'), { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    const counts = db.prepare("SELECT (SELECT count(*) FROM messages) m, (SELECT count(*) FROM tasks) t, (SELECT count(*) FROM files) f, (SELECT count(*) FROM search_fts) s").get() as any;
    expect(counts).toEqual({ m: 700, t: 150, f: 60, s: 700 + 150 + 60 + 20 });
    const someWord = (db.prepare('SELECT body FROM messages WHERE seq = 321').get() as { body: string }).body.split(' ')[0]!;
    db.close();

    s = await openTestApp({ home, database: 'home', rateLimit: { perSecond: 0, burst: 0 } });
    const a = await s.agent('Reader');
    await s.join(seeded.room, a.plate);
    const c = await s.connect(a.credential);

    const board = (await s.api('GET', `/v1/rooms/${seeded.room}/board?status=todo,doing,blocked,done`)).body;
    const open = board.lanes.reduce((n: number, l: any) => n + l.total, 0);
    expect(open + board.done_total).toBe(150);
    expect(board.lanes.filter((l: any) => l.total > 0).map((l: any) => l.assignee)).toEqual(seeded.plates);

    const files = await ok(c, 'list_files', { room: seeded.room, prefix: 'src/mod-007/' });
    expect(files.total).toBe(1);
    const f = await ok(c, 'read_file', { room: seeded.room, path: files.files[0].path });
    expect(createHash('sha256').update(f.content).digest('hex')).toBe(f.sha256);

    const history = await ok(c, 'read_room', { room: seeded.room, limit: 3 });
    expect(history.messages.map((m: any) => m.seq)).toEqual([698, 699, 700]);
    const sent = await ok(c, 'send_message', { room: seeded.room, body: 'after the seed' });
    expect(sent.seq).toBe(701);

    const found = await ok(c, 'search', { room: seeded.room, query: someWord, kinds: ['message'], limit: 100 });
    expect(found.results.length).toBeGreaterThan(0);
    const ctx = await ok(c, 'get_room_context', { room: seeded.room });
    expect(ctx.room ?? ctx).toBeTruthy();
  });
});
