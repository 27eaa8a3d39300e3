import { describe, it, expect, beforeAll, beforeEach, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, ok, type TestAgent, type TestServer } from '../helpers/server.js';
import { assembleCore, ensurePrimaryOwner } from '../../src-main/core/assemble.js';
import { primaryOwner } from '../../src-main/core/owners/store.js';
import { createAgent, agentHandle } from '../../src-main/core/agents/store.js';
import { addAgent, createRoom } from '../../src-main/core/rooms/store.js';
import { ALL_SCOPES_MASK } from '../../shared/scopes.js';
import { answerLeavesThisTurn, BUSY_SPELL_MS, flushWritesBehind, immediate, openDb, type Db } from '../../src-main/core/db/open.js';
import { sendMessage, type Sender } from '../../src-main/core/messages/service.js';
import { writeParkedLeftBehind, type ParkedDelivery } from '../../src-main/core/messages/parked.js';
import { addInboxItem } from '../../src-main/core/inbox/store.js';
import { enqueueWake } from '../../src-main/core/wakes/store.js';
import type { Core } from '../../src-main/core/core.js';

/**
 * Deliveries written behind the answer (docs/performance.md): a message whose mentions start
 * nothing (inbox items, wakes parked for pull) is answered once the message is committed, and
 * those rows follow in the next write transaction of the same turn, with the ids the answer
 * reported. Over MCP (the real server, the official client) a reader never sees the gap; in
 * process (the service called inside `answerLeavesThisTurn`, as the MCP endpoint calls it) the order of
 * commits, a rollback, a failed write and a stop before the write are each checked.
 */
type Sent = { message_id: string; wakes: Array<{ plate: string; wake_id: string | null; status: string; target: string }> };

const itemsOf = (db: Db, messageId: string) =>
  db.prepare('SELECT seq, id, plate, kind, trust_level FROM mentions WHERE message_id = ? ORDER BY seq').all(messageId) as Array<{ seq: number; id: string; plate: string }>;
const wakesOf = (db: Db, messageId: string) =>
  db.prepare('SELECT seq, id, plate, status, target, chain_depth, content FROM wakes WHERE message_id = ? ORDER BY seq').all(messageId) as Array<{ seq: number; id: string; plate: string }>;
const parkedOf = (db: Db, messageId: string) => {
  const p = (db.prepare('SELECT parked FROM messages WHERE id = ?').get(messageId) as { parked: string | null }).parked;
  return p === null ? null : (JSON.parse(p) as ParkedDelivery[]);
};

describe('over MCP: the answer first, the inbox right behind it', () => {
  let s: TestServer;
  let a: TestAgent;
  let room: string;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    a = await s.agent('Sender');
    room = await s.room('Parked');
    await s.join(room, a.plate);
  });
  afterAll(async () => {
    await s.stop();
  });

  it('a mention of agents nothing can wake: the rows the answer names are there when the answer is read, as the message planned them', async () => {
    const b = await s.agent('Bea');
    const c = await s.agent('Cy');
    await s.join(room, b.plate);
    await s.join(room, c.plate);
    const client = await s.connect(a.credential);
    const sent = await ok<Sent>(client, 'send_message', { room, body: 'both of you, please', mention_targets: [b.handle, c.handle] });
    const db = s.running.core.db;
    const parked = parkedOf(db, sent.message_id)!;
    expect(parked.map(([plate]) => plate)).toEqual([b.plate, c.plate]);

    const items = itemsOf(db, sent.message_id);
    expect(items.map((i) => [i.plate, i.seq, i.id])).toEqual(parked.map(([plate, , seq, id]) => [plate, seq, id]));
    expect(items[1]!.seq).toBe(items[0]!.seq + 1);
    const wakes = wakesOf(db, sent.message_id);
    expect(wakes).toEqual(
      parked.map(([plate, , , , w]) => ({ seq: w![0], id: w![1], plate, status: 'queued', target: 'pull', chain_depth: w![2], content: '' })),
    );
    expect(sent.wakes.map((w) => [w.plate, w.wake_id, w.status, w.target])).toEqual(wakes.map((w) => [w.plate, w.id, 'inbox', 'pull']));

    // What the mentioned agent and the owner read, right after the answer.
    const bc = await s.connect(b.credential);
    const inbox = await ok<{ items: Array<{ mention_id: string; seq: number; message?: { message_id: string } }> }>(bc, 'check_mentions', {});
    expect(inbox.items.map((m) => [m.mention_id, m.seq, m.message?.message_id])).toEqual([[items[0]!.id, items[0]!.seq, sent.message_id]]);
    const log = await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${sent.message_id}`);
    expect(log.status).toBe(200);
    expect((log.body.wakes as Array<{ wake_id: string }>).map((w) => w.wake_id).sort()).toEqual(wakes.map((w) => w.id).sort());
  });

  it('a mention of an agent with a runner is written in the message’s own transaction (something starts), nothing parked', async () => {
    const d = await s.agent('Dee');
    await s.join(room, d.plate);
    expect((await s.api('PUT', `/v1/agents/${d.plate}/runners/codex`, { command: process.execPath, args: ['-e', '0'] })).status).toBe(200);
    const client = await s.connect(a.credential);
    const sent = await ok<Sent>(client, 'send_message', { room, body: 'run this', mention_targets: [d.handle] });
    expect(parkedOf(s.running.core.db, sent.message_id)).toBeNull();
    expect(sent.wakes[0]).toMatchObject({ plate: d.plate, target: 'runner' });
    expect(wakesOf(s.running.core.db, sent.message_id)).toHaveLength(1);
  });

  it('a reader paging its inbox by cursor while one agent, then six at once, mention it misses no item and sees none twice', async () => {
    const reader = await s.agent('Reader');
    await s.join(room, reader.plate);
    const senders = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => s.agent(`Busy ${i}`)));
    for (const x of senders) await s.join(room, x.plate);
    const clients = await Promise.all(senders.map((x) => s.connect(x.credential)));
    const rc = await s.connect(reader.credential);
    const sentIds: string[] = [];
    const sendAll = (c: (typeof clients)[number], tag: string, n: number) =>
      (async () => {
        for (let k = 0; k < n; k++) {
          const sent = await ok<Sent>(c, 'send_message', { room, body: `ping ${tag}.${k}`, mention_targets: [reader.handle] });
          sentIds.push(sent.message_id);
        }
      })();
    let sending = true;
    // One session calling alone writes its rows behind; six at once write them in each message's commit (mcp/handler.ts answeredAs).
    const sends = (async () => {
      await sendAll(clients[0]!, 'alone', 40);
      await Promise.all(clients.map((c, i) => sendAll(c, `together ${i}`, 20)));
    })().finally(() => {
      sending = false;
    });
    // The reader pages with the cursor the whole time: an item committed with a seq below a cursor
    // it already passed would never be seen again.
    const seen: Array<{ seq: number; message: string }> = [];
    let cursor = 0;
    for (;;) {
      const more = sending;
      const page = await ok<{ items: Array<{ seq: number; message?: { message_id: string } }>; next_since_seq: number }>(rc, 'check_mentions', {
        room,
        since_seq: cursor,
        limit: 200,
      });
      seen.push(...page.items.map((i) => ({ seq: i.seq, message: i.message!.message_id })));
      cursor = page.next_since_seq;
      if (!more && page.items.length === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await sends;
    expect(sentIds).toHaveLength(40 + 6 * 20);
    expect(seen.map((x) => x.message).sort()).toEqual([...sentIds].sort());
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.seq).toBeGreaterThan(seen[i - 1]!.seq);
    // Both ways were taken: rows written behind, and rows in the message's own commit.
    const parked = sentIds.filter((id) => parkedOf(s.running.core.db, id) !== null).length;
    expect(parked).toBeGreaterThan(0);
    expect(parked).toBeLessThan(sentIds.length);
  });

  it('a replay with the same idempotency key, sent at once, names the same wakes', async () => {
    const e = await s.agent('Eve');
    await s.join(room, e.plate);
    const client = await s.connect(a.credential);
    const args = { room, body: 'once only', mention_targets: [e.handle], idempotency_key: 'k-parked-1' };
    const [first, again] = await Promise.all([ok<Sent>(client, 'send_message', args), ok<Sent>(client, 'send_message', args)]);
    expect(again.message_id).toBe(first.message_id);
    expect(again.wakes.map((w) => w.wake_id)).toEqual(first.wakes.map((w) => w.wake_id));
    expect(itemsOf(s.running.core.db, first.message_id)).toHaveLength(1);
  });
});

/** A core on a home of its own, as start.ts assembles it, without a listener. */
function openHome(home: string, log: (l: string) => void = () => {}): Core {
  const db = openDb(join(home, 'rooms.db'), { synchronous: 'NORMAL' });
  return assembleCore({ home, db, log, baseUrl: 'http://127.0.0.1:0', rateLimit: { perSecond: 0, burst: 0 } }).core;
}

/** The primary owner's room with three of its agents, made through the stores the routes use. */
function seed(core: Core): { sender: Sender; room: string; b: { plate: string; handle: string }; c: { plate: string; handle: string } } {
  ensurePrimaryOwner(core, 'Seed Owner');
  const ownerId = primaryOwner(core.db)!.owner_id;
  const room = createRoom(core.db, ownerId, 'Parked').id;
  const agent = (name: string) => {
    const a = createAgent(core.db, ownerId, name, ALL_SCOPES_MASK);
    addAgent(core.db, room, a.plate, ownerId);
    return { plate: a.plate, handle: agentHandle(a) };
  };
  const a = agent('Sender');
  return { sender: { kind: 'agent', plate: a.plate, ownerId }, room, b: agent('Bea'), c: agent('Cy') };
}

describe('in process: order, rollback, failure and a stop before the write', () => {
  let home: string;
  let core: Core;
  let lines: string[];
  let s: ReturnType<typeof seed>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'agent-rooms-parked-'));
    lines = [];
    core = openHome(home, (l) => lines.push(l));
    s = seed(core);
  });
  afterAll(() => {
    if (core.db.open) core.db.close();
    rmSync(home, { recursive: true, force: true });
  });

  // Each test below begins a write while rows wait (that is what it checks): the next send would
  // then write its rows in its own commit for BUSY_SPELL_MS (db/open.ts writeBehindPays).
  beforeEach(() => new Promise<void>((r) => setTimeout(r, BUSY_SPELL_MS + 5)));

  const send = (body: string, targets: string[]) => {
    const sent = answerLeavesThisTurn(core.db, () => sendMessage(core, s.sender, { roomId: s.room, body, mentionTargets: targets }));
    expect(parkedOf(core.db, sent.message_id)).not.toBeNull();
    return sent;
  };

  it('a write begun before the rows are written commits after them: seqs follow the order of commits', () => {
    const sent = send('first', [s.b.handle]);
    expect(itemsOf(core.db, sent.message_id)).toEqual([]);
    const later = addInboxItem(core.db, { plate: s.b.plate, roomId: s.room, kind: 'handoff', trustLevel: 'same_owner' });
    const items = itemsOf(core.db, sent.message_id);
    expect(items.map((i) => i.id)).toEqual([parkedOf(core.db, sent.message_id)![0]![3]]);
    expect(items[0]!.seq).toBeLessThan(later.seq);
    expect(sent.wakes[0]!.wake_id).toBe(wakesOf(core.db, sent.message_id)[0]!.id);
  });

  it('a transaction that ran them and rolled back leaves them queued; they are written with the next', () => {
    const sent = send('second', [s.c.handle]);
    expect(() =>
      immediate(core.db, () => {
        throw new Error('the caller gave up');
      }),
    ).toThrow('the caller gave up');
    expect(itemsOf(core.db, sent.message_id)).toEqual([]);
    flushWritesBehind(core.db);
    expect(itemsOf(core.db, sent.message_id).map((i) => i.plate)).toEqual([s.c.plate]);
    expect(wakesOf(core.db, sent.message_id)).toHaveLength(1);
  });

  it('at the end of the turn at the latest, without another write', async () => {
    const sent = send('third', [s.b.handle, s.c.handle]);
    await new Promise<void>((r) => setImmediate(r));
    expect(itemsOf(core.db, sent.message_id)).toHaveLength(2);
  });

  it('a write that fails is reported and undone alone; the transaction that ran it goes on; the next start writes it', () => {
    core.db.exec("CREATE TEMP TRIGGER parked_fails BEFORE INSERT ON mentions BEGIN SELECT RAISE(ABORT, 'disk trouble'); END");
    const sent = send('fourth', [s.b.handle]);
    immediate(core.db, () => core.db.prepare("UPDATE rooms SET name = 'P2' WHERE id = ?").run(s.room));
    expect((core.db.prepare('SELECT name FROM rooms WHERE id = ?').get(s.room) as { name: string }).name).toBe('P2');
    expect(itemsOf(core.db, sent.message_id)).toEqual([]);
    expect(wakesOf(core.db, sent.message_id)).toEqual([]);
    expect(lines.some((l) => l.includes(sent.message_id) && l.includes('disk trouble'))).toBe(true);
    core.db.exec('DROP TRIGGER temp.parked_fails');
    expect(writeParkedLeftBehind(core.db)).toBe(1);
    const planned = parkedOf(core.db, sent.message_id)!;
    expect(itemsOf(core.db, sent.message_id).map((i) => i.id)).toEqual([planned[0]![3]]);
    expect(wakesOf(core.db, sent.message_id).map((w) => w.id)).toEqual([planned[0]![4]![1]]);
    expect(writeParkedLeftBehind(core.db)).toBe(0);
  });

  it('a process that stops between the answer and the write: the next start writes the rows with the ids the answer reported', () => {
    const sent = send('fifth', [s.b.handle, s.c.handle]);
    const reported = sent.wakes.map((w) => w.wake_id);
    // Stopped within the turn: the queued write never runs.
    core.db.close();
    lines.length = 0;
    core = openHome(home, (l) => lines.push(l));
    expect(lines).toContain('wrote the inbox items of 1 message(s) answered just before the server stopped');
    expect(wakesOf(core.db, sent.message_id).map((w) => w.id)).toEqual(reported);
    expect(itemsOf(core.db, sent.message_id).map((i) => i.id)).toEqual(parkedOf(core.db, sent.message_id)!.map((d) => d[3]));
    // A new item takes the seq after them.
    const next = addInboxItem(core.db, { plate: s.b.plate, roomId: s.room, kind: 'handoff', trustLevel: 'same_owner' });
    expect(next.seq).toBeGreaterThan(Math.max(...itemsOf(core.db, sent.message_id).map((i) => i.seq)));
  });

  it('stopped, and the planned seqs taken since by other rows: the rows are written under the next seqs, nothing overwritten', () => {
    const sent = send('sixth', [s.b.handle]);
    const [[, , itemSeq, itemId, wake]] = parkedOf(core.db, sent.message_id)!;
    core.db.close();
    // Another writer (say, a build from before this change) took both seqs while it was down.
    const db = openDb(join(home, 'rooms.db'), { synchronous: 'NORMAL' });
    addInboxItem(db, { plate: s.c.plate, roomId: s.room, kind: 'handoff', trustLevel: 'same_owner' });
    enqueueWake(db, { plate: s.c.plate, roomId: s.room, trigger: 'assignment', content: 'other', eventKey: 'other:1' });
    const taken = { item: db.prepare('SELECT id FROM mentions WHERE seq = ?').get(itemSeq), wake: db.prepare('SELECT id FROM wakes WHERE seq = ?').get(wake![0]) };
    db.close();
    lines.length = 0;
    core = openHome(home, (l) => lines.push(l));
    expect(lines).toContain('wrote the inbox items of 1 message(s) answered just before the server stopped');
    expect(core.db.prepare('SELECT id FROM mentions WHERE seq = ?').get(itemSeq)).toEqual(taken.item);
    expect(core.db.prepare('SELECT id FROM wakes WHERE seq = ?').get(wake![0])).toEqual(taken.wake);
    const items = itemsOf(core.db, sent.message_id);
    expect(items.map((i) => i.plate)).toEqual([s.b.plate]);
    expect(items[0]!.id).not.toBe(itemId);
    expect(items[0]!.seq).toBeGreaterThan(itemSeq);
    expect(wakesOf(core.db, sent.message_id).map((w) => w.plate)).toEqual([s.b.plate]);
    expect(writeParkedLeftBehind(core.db)).toBe(0);
  });
});
