import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnServer, type ChildServer } from '../helpers/child.js';

const PAIRS = 60;

async function api(srv: ChildServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(srv.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${srv.ownerToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function connect(srv: ChildServer, credential: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${srv.baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
  });
  const c = new Client({ name: 'crash-test', version: '1.0.0' });
  await c.connect(transport);
  return c;
}

describe('tasks: crash safety', () => {
  const home = mkdtempSync(join(tmpdir(), 'agent-rooms-crash-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('SIGKILL in the middle of a stream of complete_task calls leaves no task half-completed', async () => {
    const srv = await spawnServer(home, ['--rate-limit', '0']);
    let killed = false;
    try {
      const room = (await api(srv, 'POST', '/v1/rooms', { name: 'Crash' })).room_id;
      const agent = await api(srv, 'POST', '/v1/agents', { name: 'Doer' });
      const cred = await api(srv, 'POST', `/v1/agents/${agent.plate}/credentials`, { device: 'test' });
      await api(srv, 'POST', `/v1/rooms/${room}/members`, { plate: agent.plate });
      const c = await connect(srv, cred.credential);
      const call = async (name: string, args: Record<string, unknown>) => {
        const r: any = await c.callTool({ name, arguments: args });
        if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.structuredContent)}`);
        return r.structuredContent;
      };
      const prereqs: string[] = [];
      for (let i = 0; i < PAIRS; i++) {
        const p = await call('create_task', { room, title: `p${i}`, definition_of_done: 'd', assignee: agent.plate });
        await call('create_task', { room, title: `s${i}`, definition_of_done: 'd', assignee: agent.plate, depends_on: [p.task_id] });
        await call('claim_task', { task_id: p.task_id });
        prereqs.push(p.task_id);
      }

      // A stream of completions, several in flight at once; the server is killed once a third were acknowledged.
      const acknowledged = new Set<string>();
      let reachedThird!: () => void;
      const third = new Promise<void>((r) => (reachedThird = r));
      let next = 0;
      const worker = async () => {
        while (next < prereqs.length) {
          const id = prereqs[next++]!;
          try {
            await call('complete_task', { task_id: id, status: 'done', summary: `summary ${id}`, handoff_notes: `notes for ${id} ✓\n`, artifacts: [`a/${id}`] });
            acknowledged.add(id);
            if (acknowledged.size >= PAIRS / 3) reachedThird();
          } catch {
            return; // the server is gone
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      await third;
      await srv.kill();
      killed = true;
      // A reply waits for its group-commit sync, so a call can be killed after its SSE stream opened;
      // the SDK client would wait to resume that stream: closing it ends the calls still in flight.
      await c.close().catch(() => {});
      await Promise.all(workers);

      const db = new Database(join(home, 'rooms.db'));
      try {
        const tasks = db.prepare('SELECT * FROM tasks WHERE room_id = ?').all(room) as any[];
        expect(tasks).toHaveLength(PAIRS * 2);
        const done = tasks.filter((t) => t.status === 'done');
        // Everything acknowledged survived; more may have committed without their reply arriving.
        for (const id of acknowledged) expect(done.map((t) => t.id)).toContain(id);
        expect(done.length).toBeLessThan(PAIRS);

        for (const p of tasks.filter((t) => t.title.startsWith('p'))) {
          const succ = db.prepare('SELECT task_id FROM task_deps WHERE depends_on = ?').get(p.id) as { task_id: string };
          const wakes = db.prepare("SELECT content FROM wakes WHERE trigger = 'successor' AND task_id = ?").all(succ.task_id) as any[];
          const handoffs = db.prepare('SELECT notes FROM task_handoffs WHERE from_task_id = ?').all(p.id) as any[];
          const inbox = db.prepare("SELECT COUNT(*) AS n FROM mentions WHERE task_id = ? AND kind = 'handoff'").get(succ.task_id) as any;
          if (p.status === 'done') {
            expect(p.handoff_notes).toBe(`notes for ${p.id} ✓\n`);
            expect(p.summary).toBe(`summary ${p.id}`);
            expect(JSON.parse(p.artifacts)).toEqual([`a/${p.id}`]);
            expect(p.completed_at).not.toBeNull();
            expect(p.lease_instance_id).toBeNull();
            expect(wakes).toHaveLength(1);
            expect(JSON.parse(wakes[0].content).handoff_notes).toBe(p.handoff_notes);
            expect(handoffs.map((h) => h.notes)).toEqual([p.handoff_notes]);
            expect(inbox.n).toBe(1);
          } else {
            expect(p.status).toBe('doing');
            expect(p.lease_instance_id).not.toBeNull();
            expect(p.handoff_notes).toBeNull();
            expect(p.summary).toBeNull();
            expect(p.completed_at).toBeNull();
            expect(wakes).toHaveLength(0);
            expect(handoffs).toHaveLength(0);
            expect(inbox.n).toBe(0);
          }
        }
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    } finally {
      if (!killed) await srv.kill();
    }
  });
});
