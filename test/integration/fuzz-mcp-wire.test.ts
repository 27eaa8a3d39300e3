import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { junk, edgeString, dbConsistency } from '../load/arbitraries.js';

/**
 * What the official client will not send, sent raw to /mcp: tools/call with a name or arguments of
 * the wrong JSON type, and junk JSON-RPC. Split from fuzz-tools.test.ts, whose property over every
 * tool runs in process: this is the MCP transport's part.
 */

const CALL_TIMEOUT_MS = 20_000;
const BODY_LIMIT = 1024 * 1024;

describe('fuzzing the MCP wire', () => {
  let s: TestServer;
  let agent: TestAgent;
  let client: Client;
  let tools: Array<{ name: string }>;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    agent = await s.agent('Fuzzer');
    const room = await s.room('Fuzz room');
    await s.join(room, agent.plate);
    client = await s.connect(agent.credential);
    tools = (await client.listTools()).tools;
  });
  afterAll(async () => s.stop());

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
