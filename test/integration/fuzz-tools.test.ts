import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { ok, fails, type TestAgent } from '../helpers/server.js';
import { toolArgs, dbConsistency } from '../load/arbitraries.js';
import { ERROR_CODES } from '../../shared/errors.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

/**
 * Property: whatever arguments any tool gets (shaped after its schema, or broken on purpose),
 * the answer is a tool result within bounded time; a failure is a structured error with an
 * error_id stored in the evidence store and never a 5xx; the database stays consistent.
 * Tools are enumerated from tools/list, so capabilities that land later are covered too.
 */

const CALL_TIMEOUT_MS = 20_000;
const BODY_LIMIT = 1024 * 1024;

/** A call that does not answer within `ms` fails the property (a hang), as the client's request timeout did over HTTP. */
function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
/** The whole property run stays bounded however many tools exist. */
const TOTAL_CALLS = 1_600;

describe('fuzzing every tool', () => {
  let s: TestApp;
  let agent: TestAgent;
  let client: AppClient;
  let tools: Array<{ name: string; inputSchema: Record<string, unknown> }>;
  const seeds: string[] = [];
  const hints: Record<string, string[]> = {};
  const errorIds: string[] = [];

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    agent = await s.agent('Fuzzer');
    const peer = await s.agent('Peer');
    const room = await s.room('Fuzz room');
    const foreignRoom = await s.room('Not joined');
    await s.join(room, agent.plate);
    await s.join(room, peer.plate);
    client = await s.connect(agent.credential);
    tools = (await client.listTools()).tools as typeof tools;
    const msg = await ok(client, 'send_message', { room, body: 'seed' });
    seeds.push(room, foreignRoom, agent.plate, peer.plate, agent.handle, peer.handle, msg.message_id, 'room_nope', 'task_nope', 'file_nope');
    Object.assign(hints, {
      room: [room, room, room, foreignRoom],
      rooms: [room],
      assignee: [agent.plate, peer.plate, peer.handle],
      plate: [agent.plate, peer.plate],
      handle: [peer.handle, agent.handle, `${peer.handle}#x`],
      mentions: [peer.handle, agent.handle],
      mention_targets: [peer.handle, agent.handle],
      parent_id: [msg.message_id],
      task_id: [] as string[],
      depends_on: [] as string[],
      file_id: [] as string[],
      path: ['notes/a.txt', 'seed/a.txt', 'x.bin'],
      mode: ['trust_room', 'blocked'],
    });
    const names = new Set(tools.map((t) => t.name));
    // Real ids of the capabilities that exist, so generated calls reach the deeper rules.
    if (names.has('create_task')) {
      for (const assignee of [agent.plate, peer.plate]) {
        const t = await ok(client, 'create_task', { room, title: 'seed', definition_of_done: 'seeded', assignee });
        const id = t.task_id ?? t.task?.task_id;
        seeds.push(id);
        hints.task_id!.push(id);
        hints.depends_on!.push(id);
      }
    }
    if (names.has('write_file')) {
      const f = await ok(client, 'write_file', { room, path: 'seed/a.txt', content: 'seed' });
      seeds.push(f.file_id, f.path ?? 'seed/a.txt');
      hints.file_id!.push(f.file_id);
    }
    const err = await fails(client, 'read_room', { room: foreignRoom });
    seeds.push(err.error_id, 'err_01M80AA8F7WRQHP6TF5G3DQYHQ');
    hints.error_id = [err.error_id];
    for (const k of Object.keys(hints)) if (!hints[k]!.length) delete hints[k];
  });
  afterAll(async () => s.stop());

  it('never crashes, hangs, 5xxs or fails without an error_id', async () => {
    const runs = Math.max(20, Math.floor(TOTAL_CALLS / tools.length));
    const seen: Record<string, { ok: number; err: Record<string, number> }> = {};
    for (const tool of tools) {
      seen[tool.name] = { ok: 0, err: {} };
      await fc.assert(
        fc.asyncProperty(toolArgs(tool.inputSchema, seeds.filter(Boolean), hints), async (args) => {
          fc.pre(Buffer.byteLength(JSON.stringify(args)) < BODY_LIMIT - 4096);
          const r: any = await within(CALL_TIMEOUT_MS, client.callTool({ name: tool.name, arguments: args }), tool.name);
          expect(typeof r._meta?.pending_mentions).toBe('number');
          expect(Array.isArray(r.content)).toBe(true);
          if (!r.isError) {
            seen[tool.name]!.ok++;
            return;
          }
          const e = r.structuredContent?.error;
          expect(e, JSON.stringify(r).slice(0, 500)).toBeDefined();
          expect(e.error_id).toMatch(/^err_[0-9A-Z]{26}$/);
          expect(ERROR_CODES).toContain(e.code);
          expect(e.code, `${tool.name}: ${e.message}`).not.toBe('INTERNAL');
          expect(e.http_status, `${tool.name}: ${e.code} ${e.message}`).toBeLessThan(500);
          expect(typeof e.retryable).toBe('boolean');
          expect(e.next_action).toBe('diagnose_error');
          seen[tool.name]!.err[e.code] = (seen[tool.name]!.err[e.code] ?? 0) + 1;
          errorIds.push(e.error_id);
        }),
        { numRuns: runs, endOnFailure: true },
      );
    }
    const table = Object.entries(seen).map(([n, v]) => `${n.padEnd(24)} ok ${String(v.ok).padStart(3)}  errors ${JSON.stringify(v.err)}`);
    console.log(`fuzzed ${tools.length} tools, ${runs} calls each:\n${table.join('\n')}`);
    // Each error_id is a real row of the evidence store, not a decoration.
    const stored = s.running.core.db.prepare('SELECT COUNT(*) AS n FROM evidence WHERE error_id = ?');
    for (const id of errorIds.slice(0, 300)) expect((stored.get(id) as { n: number }).n).toBe(1);
    const c = dbConsistency(s.running.core.db);
    expect(c.integrity).toBe('ok');
    expect(c.foreignKeyViolations).toBe(0);
    expect((await ok(client, 'whoami')).plate).toBe(agent.plate);
  });
  // Raw JSON-RPC (wrong JSON types, junk) is the transport's part: fuzz-mcp-wire.test.ts.
});
