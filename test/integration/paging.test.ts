/**
 * Paged reads (issue 15, item 4): read_board / GET …/board per lane, list_files / GET …/files,
 * and the wake logs. Every list: limit, cursor, the last page (next_cursor null), and a change
 * between two pages (inserts and deletes: nothing that was there all along is skipped or repeated).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { createTask, claimTask, completeTask } from '../../src-main/core/tasks/service.js';
import { enqueueWake } from '../../src-main/core/wakes/store.js';
import { immediate } from '../../src-main/core/db/open.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { appFor, seatFor } from '../helpers/seat.js';

const SUMMARY_KEYS = ['assignee', 'assignee_handle', 'blocked_by', 'consent_state', 'depends_on', 'lease', 'merged', 'order', 'room', 'status', 'task_id', 'title', 'updated_at'];

describe('paging: the board', () => {
  let s: TestApp;
  let room: string;
  let agents: TestAgent[];
  let c: AppClient;
  let ownerId: string;
  const seed = (a: TestAgent, title: string, order?: number) =>
    createTask(s.running.core, { kind: 'agent', plate: a.plate, ownerId, sessionId: 'seed' }, { roomId: room, title, definitionOfDone: 'dod', assignee: a.plate, detail: `detail of ${title}`, order });

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('Board');
    agents = [];
    for (const n of ['Ann', 'Bob', 'Cyd']) {
      const a = await s.agent(n);
      await s.join(room, a.plate);
      agents.push(a);
    }
    ownerId = (await s.api('GET', '/v1/me')).body.owner_id;
    for (let i = 0; i < 25; i++) for (const a of agents) seed(a, `${a.plate} t${i}`, i % 4);
    // Six done tasks of Bob's, completed one after another.
    for (let i = 0; i < 6; i++) {
      const t = seed(agents[1]!, `done ${i}`);
      const actor = { kind: 'agent' as const, plate: agents[1]!.plate, ownerId, sessionId: 'seed' };
      claimTask(s.running.core, actor, t.task_id, 'inst');
      completeTask(s.running.core, actor, t.task_id, { status: 'done', handoffNotes: 'notes' });
    }
    c = await s.connect(agents[0]!.credential);
  });
  afterAll(async () => s.stop());

  /** The lane's tasks in board order straight from SQLite: what paging must reproduce. */
  const laneIds = (plate: string) =>
    (
      s.running.core.db
        .prepare("SELECT id FROM tasks WHERE room_id = ? AND assignee = ? AND status IN ('todo','doing','blocked','failed') AND archived_at IS NULL ORDER BY sort_order IS NULL, sort_order, created_at, id")
        .all(room, plate) as Array<{ id: string }>
    ).map((r) => r.id);

  it('the default MCP page: compact tasks, totals, the caller\'s own lane longer than the others', async () => {
    const b = await ok(c, 'read_board', { room });
    expect(b.lanes.map((l: any) => l.assignee)).toEqual(agents.map((a) => a.plate));
    const own = b.lanes[0];
    const other = b.lanes[2];
    expect(own.total).toBe(25);
    expect(own.tasks.length).toBe(10);
    expect(other.tasks.length).toBeLessThan(own.tasks.length);
    expect(other.next_cursor).toEqual(expect.any(String));
    for (const t of own.tasks) expect(Object.keys(t).sort()).toEqual(SUMMARY_KEYS);
    expect(own.tasks.map((t: any) => t.task_id)).toEqual(laneIds(agents[0]!.plate).slice(0, 10));
    expect(b.done_total).toBe(6);
    expect(b.done.length).toBeLessThanOrEqual(6);
    // The full record: read_task, or detail "full".
    const full = await ok(c, 'read_task', { task_id: own.tasks[0].task_id });
    expect(full).toMatchObject({ task_id: own.tasks[0].task_id, detail: expect.stringMatching(/^detail of/), definition_of_done: 'dod' });
    const detailed = await ok(c, 'read_board', { room, detail: 'full', limit: 2 });
    expect(detailed.lanes[0].tasks[0]).toMatchObject({ definition_of_done: 'dod', detail: expect.any(String) });
  });

  it('a lane pages to its end with lane + cursor, MCP and /v1 alike, last page next_cursor null', async () => {
    const plate = agents[2]!.plate;
    for (const via of ['mcp', 'http'] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const b =
          via === 'mcp'
            ? await ok(c, 'read_board', { room, lane: plate, limit: 7, ...(cursor ? { cursor } : {}) })
            : (await s.api('GET', `/v1/rooms/${room}/board?lane=${plate}&limit=7${cursor ? `&cursor=${cursor}` : ''}`)).body;
        expect(b.lanes).toHaveLength(1);
        expect(b.lanes[0].total).toBe(25);
        seen.push(...b.lanes[0].tasks.map((t: any) => t.task_id));
        pages++;
        cursor = b.lanes[0].next_cursor ?? undefined;
        if (!cursor) break;
      }
      expect(pages).toBe(4);
      expect(seen).toEqual(laneIds(plate));
    }
  });

  it('a change between pages skips and repeats nothing that was there all along', async () => {
    const plate = agents[1]!.plate;
    const before = laneIds(plate);
    const p1 = await ok(c, 'read_board', { room, lane: plate, limit: 5 });
    const first = p1.lanes[0].tasks.map((t: any) => t.task_id);
    // Between the pages: the page's last task (the cursor's anchor) and a later one are cancelled,
    // a task is inserted before the cursor and one after it.
    const anchor = first[first.length - 1];
    const later = before[9]!;
    for (const id of [anchor, later]) expect((await s.api('POST', `/v1/rooms/${room}/tasks/${id}/cancel`)).status).toBe(200);
    seed(agents[1]!, 'inserted early', -5);
    const lateTask = seed(agents[1]!, 'inserted late', 99);
    const rest: string[] = [];
    let cursor = p1.lanes[0].next_cursor;
    while (cursor) {
      const b = await ok(c, 'read_board', { room, lane: plate, limit: 5, cursor });
      rest.push(...b.lanes[0].tasks.map((t: any) => t.task_id));
      cursor = b.lanes[0].next_cursor;
    }
    const all = [...first, ...rest];
    expect(new Set(all).size).toBe(all.length);
    for (const id of before) if (id !== anchor && id !== later) expect(all).toContain(id);
    expect(rest).not.toContain(later);
    expect(rest).toContain(lateTask.task_id);
  });

  it('the done view pages newest first with lane "done"', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const r = await s.api('GET', `/v1/rooms/${room}/board?lane=done&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.lanes).toEqual([]);
      expect(r.body.done_total).toBe(6);
      seen.push(...r.body.done.map((t: any) => t.task_id));
      cursor = r.body.done_next_cursor ?? undefined;
      if (!cursor) break;
    }
    const expected = (
      s.running.core.db.prepare("SELECT id FROM tasks WHERE room_id = ? AND status = 'done' ORDER BY completed_at DESC, id DESC").all(room) as Array<{ id: string }>
    ).map((r) => r.id);
    expect(seen).toEqual(expected);
  });

  it('the /v1 default shares the 500-task budget among the lanes (10 to 50 each) with totals; bad cursors and lanes are structured errors', async () => {
    const b = (await s.api('GET', `/v1/rooms/${room}/board`)).body;
    const perLane = Math.max(10, Math.min(50, Math.floor(500 / b.lanes.length)));
    for (const l of b.lanes) {
      expect(l.tasks.length).toBe(Math.min(perLane, l.total));
      expect(l.next_cursor === null).toBe(l.total <= perLane);
    }
    for (const q of ['cursor=abc', `lane=${agents[0]!.plate}&cursor=!!`, `lane=${agents[0]!.plate}&cursor=${Buffer.from('{"x":1}').toString('base64url')}`, 'lane=nobody', 'limit=201', 'detail=everything']) {
      const r = await s.api('GET', `/v1/rooms/${room}/board?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', error_id: expect.stringMatching(/^err_/) });
    }
    expect((await fails(c, 'read_board', { room, lane: 'done', cursor: 'W10x' })).code).toBe('INVALID_ARGUMENT');
  });
});

describe('paging: files', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Writer', 'Files');
  let other: AppClient;

  beforeAll(async () => {
    const b = await s.agent('Other');
    await s.join(seat.room, b.plate);
    other = await s.connect(b.credential);
    for (let i = 0; i < 23; i++) await ok(seat.c, 'write_file', { room: seat.room, path: `docs/f${String(i).padStart(2, '0')}.md`, content: `file ${i}` });
    await ok(seat.c, 'write_file', { room: seat.room, path: 'src/main.ts', content: 'x' });
    // Another agent's upload that is still quarantined: not listed (nor counted) for us.
    await ok(other, 'share_file', { room: seat.room, filename: 'docs/pending.bin', content_type: 'application/octet-stream', size_bytes: 3, sha256: 'a'.repeat(64) });
  });

  async function pageAll(via: 'mcp' | 'http', limit: number, prefix = '', between?: (page: number) => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    let total = -1;
    for (;;) {
      const r =
        via === 'mcp'
          ? await ok(seat.c, 'list_files', { room: seat.room, limit, ...(prefix ? { prefix } : {}), ...(cursor ? { cursor } : {}) })
          : (await s.api('GET', `/v1/rooms/${seat.room}/files?limit=${limit}${prefix ? `&prefix=${prefix}` : ''}${cursor ? `&cursor=${cursor}` : ''}`)).body;
      expect(r.files.length).toBeLessThanOrEqual(limit);
      total = r.total;
      seen.push(...r.files.map((f: any) => f.path));
      cursor = r.next_cursor ?? undefined;
      page++;
      if (!cursor) break;
      await between?.(page);
    }
    return { seen, total, pages: page };
  }

  it('list_files and GET …/files page by path to the last page, with total and prefix', async () => {
    const mcp = await pageAll('mcp', 5, 'docs/');
    expect(mcp.pages).toBe(5);
    expect(mcp.total).toBe(23);
    expect(mcp.seen).toEqual(Array.from({ length: 23 }, (_, i) => `docs/f${String(i).padStart(2, '0')}.md`));
    // Humans see every file, the quarantined upload too.
    const http = await pageAll('http', 10);
    expect(http.total).toBe(25);
    expect(http.seen).toContain('docs/pending.bin');
    expect(http.seen).toContain('src/main.ts');
    const first = (await s.api('GET', `/v1/rooms/${seat.room}/files?limit=1`)).body;
    expect(first.files[0].versions).toHaveLength(1);
    const dflt = await ok(seat.c, 'list_files', { room: seat.room });
    expect(dflt.files.length).toBe(24);
    expect(dflt.next_cursor).toBeNull();
  });

  it('a change between pages skips and repeats nothing that was there all along', async () => {
    const before = (await pageAll('mcp', 100, 'docs/')).seen;
    const deleted = 'docs/f15.md';
    const r = await pageAll('mcp', 6, 'docs/', async (page) => {
      if (page !== 1) return;
      await ok(seat.c, 'delete_file', { room: seat.room, path: deleted });
      await ok(seat.c, 'delete_file', { room: seat.room, path: 'docs/f05.md' }); // the first page's last path: the cursor's anchor
      await ok(seat.c, 'write_file', { room: seat.room, path: 'docs/a-early.md', content: 'before the cursor' });
      await ok(seat.c, 'write_file', { room: seat.room, path: 'docs/z-late.md', content: 'after the cursor' });
    });
    expect(new Set(r.seen).size).toBe(r.seen.length);
    for (const p of before) if (p !== deleted) expect(r.seen).toContain(p);
    expect(r.seen).not.toContain(deleted);
    expect(r.seen).toContain('docs/z-late.md');
    expect(r.total).toBe(23); // 23 - 2 deleted + 2 written
  });

  it('bad cursors and limits are structured errors', async () => {
    expect((await fails(seat.c, 'list_files', { room: seat.room, cursor: 'not a cursor' })).code).toBe('INVALID_ARGUMENT');
    expect((await fails(seat.c, 'list_files', { room: seat.room, limit: 501 })).code).toBe('INVALID_ARGUMENT');
    for (const q of ['cursor=%00', 'limit=0', 'limit=x', `cursor=${Buffer.from('[1]').toString('base64url')}`]) {
      const r = await s.api('GET', `/v1/rooms/${seat.room}/files?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.error_id).toMatch(/^err_/);
    }
  });
});

describe('paging: wake logs', () => {
  const s = appFor({ rateLimit: { perSecond: 0, burst: 0 } });
  const seat = seatFor(s, 'Target', 'Wakes');
  beforeAll(() => {
    for (let i = 0; i < 11; i++) wake(i);
  });
  let n = 0;
  /** Queues a wake through the real store function (as a mention would). */
  const wake = (i: number) =>
    immediate(s.running.core.db, () =>
      enqueueWake(s.running.core.db, { plate: seat.agent.plate, roomId: seat.room, trigger: 'mention', content: `ping ${i}`, eventKey: `test:${i}:${n++}` }),
    );

  it('both logs page newest first with limit and cursor to the last page, across new wakes in between', async () => {
    for (const path of [`/v1/agents/${seat.agent.plate}/wakes`, `/v1/rooms/${seat.room}/wakes`]) {
      const all = (await s.api('GET', `${path}?limit=500`)).body.wakes.map((w: any) => w.wake_id);
      expect(all.length).toBeGreaterThanOrEqual(11);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const r = await s.api('GET', `${path}?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        expect(r.status).toBe(200);
        seen.push(...r.body.wakes.map((w: any) => w.wake_id));
        cursor = r.body.next_cursor ?? undefined;
        if (!cursor) break;
        if (++pages === 1) wake(99);
      }
      // The new wake is newer than the cursor: not on a later page; nothing else moved.
      expect(seen).toEqual(all);
    }
    const r = await s.api('GET', `/v1/rooms/${seat.room}/wakes?cursor=zz`);
    expect(r.status).toBe(400);
  });
});
