import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { dbConsistency } from '../load/arbitraries.js';

/**
 * Lost-update checks in the style of Jepsen's register and set tests, against the real server
 * with 24 concurrent MCP sessions: every operation is issued at once, then the history of
 * answers is checked against the final state read back.
 */

const SESSIONS = 24;

describe('concurrency: register and set checks with 24 sessions', () => {
  let s: TestServer;
  let room: string;
  let owner: TestAgent;
  /** 24 sessions (instances) of the same agent. */
  let same: Client[];
  /** 24 sessions of 24 different agents. */
  let many: Array<{ agent: TestAgent; client: Client }>;
  let hasTasks = false;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('Race room');
    owner = await s.agent('Racer');
    await s.join(room, owner.plate);
    same = await Promise.all(Array.from({ length: SESSIONS }, () => s.connect(owner.credential)));
    many = [];
    for (let i = 0; i < SESSIONS; i++) {
      const agent = await s.agent(`Other ${i}`);
      await s.join(room, agent.plate);
      many.push({ agent, client: await s.connect(agent.credential) });
    }
    hasTasks = (await same[0]!.listTools()).tools.some((t) => t.name === 'claim_task');
  }, 60_000);
  afterAll(async () => s.stop());

  const call = async (c: Client, name: string, args: Record<string, unknown>) => {
    const r: any = await c.callTool({ name, arguments: args });
    return r.isError ? { ok: false as const, error: r.structuredContent.error } : { ok: true as const, value: r.structuredContent };
  };

  async function newTask(title: string): Promise<string> {
    const t = await ok(same[0]!, 'create_task', { room, title, definition_of_done: 'raced', assignee: owner.plate });
    return t.task_id;
  }

  async function taskRow(id: string) {
    return s.running.core.db.prepare('SELECT status, lease_instance_id, handoff_notes, title, detail FROM tasks WHERE id = ?').get(id) as {
      status: string;
      lease_instance_id: string | null;
      handoff_notes: string | null;
      title: string;
      detail: string | null;
    };
  }

  it('set: 24 sessions × 10 messages at once; every acknowledged message is there once, seq has no gap or repeat', async () => {
    const sends = many.flatMap(({ client }, i) =>
      Array.from({ length: 10 }, (_, j) => call(client, 'send_message', { room, body: `set ${i}-${j}` }).then((r) => ({ r, body: `set ${i}-${j}` }))),
    );
    const results = await Promise.all(sends);
    const acked = results.filter((x) => x.r.ok);
    expect(acked.length).toBe(SESSIONS * 10);
    // Read the whole history back, page by page.
    const seen: Array<{ seq: number; body: string; message_id: string }> = [];
    let before: number | undefined;
    for (;;) {
      const page = await ok(same[0]!, 'read_room', { room, limit: 200, ...(before ? { before_seq: before } : {}) });
      seen.push(...page.messages);
      if (!page.has_more) break;
      before = page.next_before_seq;
    }
    const bodies = seen.map((m) => m.body).filter((b) => b.startsWith('set '));
    expect(new Set(bodies).size).toBe(bodies.length);
    for (const a of acked) expect(bodies).toContain(a.body);
    const seqs = seen.map((m) => m.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    // Each acknowledgement names the message that was stored.
    const byId = new Map(seen.map((m) => [m.message_id, m.body]));
    for (const a of acked) expect(byId.get(a.r.ok ? a.r.value.message_id : '')).toBe(a.body);
  });

  it('idempotency under a race: 24 sessions send with the same key at once; one message, one answer', async () => {
    const rs = await Promise.all(same.map((c) => call(c, 'send_message', { room, body: 'exactly once', idempotency_key: 'race-key-1' })));
    expect(rs.every((r) => r.ok)).toBe(true);
    const ids = new Set(rs.map((r) => (r.ok ? r.value.message_id : '')));
    expect(ids.size).toBe(1);
    const n = s.running.core.db.prepare("SELECT COUNT(*) AS n FROM messages WHERE body = 'exactly once'").get() as { n: number };
    expect(n.n).toBe(1);
  });

  it('register: claim_task raced by 24 instances of the assignee; exactly one wins and holds the lease', async (ctx) => {
    if (!hasTasks) return ctx.skip();
    for (let round = 0; round < 5; round++) {
      const id = await newTask(`claim race ${round}`);
      const rs = await Promise.all(same.map((c) => call(c, 'claim_task', { task_id: id })));
      const winners = rs.map((r, i) => ({ r, i })).filter((x) => x.r.ok && x.r.value.claimed === true);
      expect(winners.length).toBe(1);
      for (const x of rs) if (!x.ok) expect(x.error.reason).toBe('already_claimed');
      const winnerSession = (same[winners[0]!.i]!.transport as unknown as { sessionId: string }).sessionId;
      const row = await taskRow(id);
      expect(row.status).toBe('doing');
      expect(row.lease_instance_id).toBe(winnerSession);
    }
  });

  it('register: claim_task raced by 24 other agents; nobody takes a task from its assignee', async (ctx) => {
    if (!hasTasks) return ctx.skip();
    const id = await newTask('not yours');
    const rs = await Promise.all(many.map(({ client }) => call(client, 'claim_task', { task_id: id })));
    for (const r of rs) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.reason).toBe('not_assigned');
    }
    expect((await taskRow(id)).status).toBe('todo');
  });

  it('register: complete_task raced by 24 instances with different handoff notes; one completion, its notes kept', async (ctx) => {
    if (!hasTasks) return ctx.skip();
    for (let round = 0; round < 3; round++) {
      const id = await newTask(`complete race ${round}`);
      await ok(same[0]!, 'claim_task', { task_id: id });
      const rs = await Promise.all(
        same.map((c, i) => call(c, 'complete_task', { task_id: id, status: 'done', handoff_notes: `notes from ${i}`, summary: `s${i}` })),
      );
      const winners = rs.map((r, i) => ({ r, i })).filter((x) => x.r.ok);
      expect(winners.length).toBe(1);
      for (const r of rs) if (!r.ok) expect(r.error.error_id).toMatch(/^err_/);
      const row = await taskRow(id);
      expect(row.status).toBe('done');
      expect(row.handoff_notes).toBe(`notes from ${winners[0]!.i}`);
      expect(row.lease_instance_id).toBeNull();
    }
  });

  it('register: update_task raced by 24 sessions; each sees its own write, the final value is one that was written, no field is torn', async (ctx) => {
    if (!hasTasks) return ctx.skip();
    const id = await newTask('register 0');
    const written = new Set<string>(['register 0']);
    for (let round = 0; round < 3; round++) {
      const rs = await Promise.all(
        same.map((c, i) => {
          const title = `register r${round} s${i}`;
          written.add(title);
          // Title and detail are written together: a torn update would pair them wrongly.
          return call(c, 'update_task', { task_id: id, title, detail: `detail of ${title}` }).then((r) => ({ r, title }));
        }),
      );
      for (const { r, title } of rs) {
        expect(r.ok).toBe(true);
        if (r.ok) {
          expect(r.value.title ?? r.value.task?.title).toBe(title);
        }
      }
      const row = await taskRow(id);
      expect(written.has(row.title)).toBe(true);
      expect(row.detail).toBe(`detail of ${row.title}`);
      // Concurrent readers only ever see a written value.
      // (read_task: read_board's tasks are compact and carry no detail.)
      const reads = await Promise.all(many.slice(0, 8).map(({ client }) => ok(client, 'read_task', { task_id: id })));
      for (const t of reads) {
        expect(written.has(t.title)).toBe(true);
        expect(t.detail).toBe(`detail of ${t.title}`);
      }
    }
  });

  it('set: 24 agents create tasks at once, each with an idempotency key sent twice; every task is there once', async (ctx) => {
    if (!hasTasks) return ctx.skip();
    const rs = await Promise.all(
      many.flatMap(({ client, agent }, i) =>
        [0, 1].map(() =>
          call(client, 'create_task', { room, title: `set task ${i}`, definition_of_done: 'x', assignee: agent.plate, idempotency_key: `set-task-${i}` }),
        ),
      ),
    );
    expect(rs.every((r) => r.ok)).toBe(true);
    for (let i = 0; i < SESSIONS; i++) {
      const a = rs[2 * i]!;
      const b = rs[2 * i + 1]!;
      expect(a.ok && b.ok && a.value.task_id === b.value.task_id).toBe(true);
    }
    const n = s.running.core.db.prepare("SELECT COUNT(*) AS n FROM tasks WHERE title LIKE 'set task %'").get() as { n: number };
    expect(n.n).toBe(SESSIONS);
    const c = dbConsistency(s.running.core.db);
    expect(c.integrity).toBe('ok');
    expect(c.foreignKeyViolations).toBe(0);
  });
});
