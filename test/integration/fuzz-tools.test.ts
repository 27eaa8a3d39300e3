import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, fails, type TestServer, type TestAgent } from '../helpers/server.js';
import { toolArgs, junk, edgeString, dbConsistency } from '../load/arbitraries.js';
import { ERROR_CODES } from '../../shared/errors.js';

/**
 * Property: whatever arguments any tool gets (shaped after its schema, or broken on purpose),
 * the answer is a tool result within bounded time; a failure is a structured error with an
 * error_id stored in the evidence store and never a 5xx; the database stays consistent.
 * Tools are enumerated from tools/list, so capabilities that land later are covered too.
 */

const CALL_TIMEOUT_MS = 20_000;
const BODY_LIMIT = 1024 * 1024;
/** The whole property run stays bounded however many tools exist. */
const TOTAL_CALLS = 1_600;

describe('fuzzing every tool', () => {
  let s: TestServer;
  let agent: TestAgent;
  let client: Client;
  let tools: Array<{ name: string; inputSchema: Record<string, unknown> }>;
  const seeds: string[] = [];
  const hints: Record<string, string[]> = {};
  const errorIds: string[] = [];

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
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
          const r: any = await client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
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

  it('unknown tools, and names or arguments of the wrong JSON type, are structured tool errors with an error_id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(edgeString, fc.string({ maxLength: 300 })), fc.option(junk, { nil: undefined }), async (name, args) => {
        fc.pre(!tools.some((t) => t.name === name));
        fc.pre(args === undefined || Buffer.byteLength(JSON.stringify(args)) < BODY_LIMIT - 4096);
        const res = await rawRpc(s, agent.credential, sessionOf(client), {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name, ...(args === undefined ? {} : { arguments: args }) },
        });
        expect(res.status).toBeLessThan(500);
        const msg = res.json as any;
        // Even a name or arguments of the wrong JSON type is a structured tool error with an error_id.
        expect(msg.error).toBeUndefined();
        expect(msg.result.isError).toBe(true);
        expect(msg.result.structuredContent.error.error_id).toMatch(/^err_/);
        expect(msg.result.structuredContent.error.code).not.toBe('INTERNAL');
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('a known tool called with non-object arguments is INVALID_ARGUMENT with an error_id', async () => {
    for (const args of [[1, 2], 'text', 42, null, true]) {
      const res = await rawRpc(s, agent.credential, sessionOf(client), {
        jsonrpc: '2.0',
        id: 8,
        method: 'tools/call',
        params: { name: 'whoami', arguments: args },
      });
      const msg = res.json as any;
      expect(msg.result?.isError).toBe(true);
      expect(msg.result.structuredContent.error).toMatchObject({ code: 'INVALID_ARGUMENT', error_id: expect.stringMatching(/^err_/) });
    }
    const named = await rawRpc(s, agent.credential, sessionOf(client), { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 12 } });
    expect((named.json as any).result.structuredContent.error).toMatchObject({ code: 'NOT_FOUND', reason: 'unknown_tool' });
  });

  it('junk JSON-RPC on /mcp gets 2xx/4xx answers and leaves the session usable', async () => {
    const sid = sessionOf(client);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          junk,
          fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0', 2), id: junk, method: fc.oneof(edgeString, fc.constantFrom('tools/list', 'ping', 'initialize', 'resources/list', 'x')), params: junk }, { requiredKeys: [] }),
          fc.array(fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer(), method: fc.constantFrom('ping', 'tools/list') }), { maxLength: 3 }),
        ),
        async (body) => {
          fc.pre(Buffer.byteLength(JSON.stringify(body) ?? '') < BODY_LIMIT - 4096);
          const res = await rawRpc(s, agent.credential, sid, body);
          expect(res.status, res.text.slice(0, 300)).toBeLessThan(500);
        },
      ),
      { numRuns: 120, endOnFailure: true },
    );
    expect((await ok(client, 'whoami')).plate).toBe(agent.plate);
    const c = dbConsistency(s.running.core.db);
    expect(c.integrity).toBe('ok');
    expect(c.foreignKeyViolations).toBe(0);
  });
});

function sessionOf(client: Client): string {
  return (client.transport as unknown as { sessionId: string }).sessionId;
}

/** One JSON-RPC POST on an existing session; decodes a JSON or single-event SSE answer. */
export async function rawRpc(s: TestServer, key: string, sid: string, body: unknown): Promise<{ status: number; text: string; json: unknown }> {
  const res = await fetch(`${s.baseUrl}/mcp?key=${key}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sid,
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body) ?? 'null',
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  let json: unknown;
  const data = /^data: (.*)$/m.exec(text);
  try {
    json = JSON.parse(data ? data[1]! : text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}
