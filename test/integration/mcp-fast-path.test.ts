import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { INITIALIZE, rawMcp } from '../helpers/core.js';
import type { McpSession } from '../../src-main/core/sessions.js';

/**
 * The tools/call fast path (docs/performance.md): one plain tools/call on a session is answered
 * by handler.ts without the SDK transport, with the bytes the SDK would send (one JSON body); everything else
 * still goes through the SDK. Each session's transport is wrapped to count what reaches it.
 */
let s: TestServer;
let auth: Record<string, string>;

beforeAll(async () => {
  s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
  const a = await s.agent('Fast');
  auth = { authorization: `Bearer ${a.credential}` };
});
afterAll(async () => {
  await s.stop();
});

async function session(): Promise<{ sid: string; headers: Record<string, string>; session: McpSession; sdkRequests: () => number }> {
  const init = await rawMcp(s, INITIALIZE, auth);
  expect(init.status).toBe(200);
  const sid = init.headers.get('mcp-session-id')!;
  const headers = { ...auth, 'mcp-session-id': sid };
  expect((await rawMcp(s, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).status).toBe(202);
  const session = s.running.core.sessions.get(sid)!;
  let n = 0;
  const transport = session.transport as unknown as { handleRequest: (...a: unknown[]) => Promise<void> };
  const handle = transport.handleRequest.bind(transport);
  transport.handleRequest = (...a: unknown[]) => {
    n++;
    return handle(...a);
  };
  return { sid, headers, session, sdkRequests: () => n };
}

const call = (id: unknown, name: string, args: unknown = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
/** The one thing two answers to the same call may differ in: a fresh error_id. */
const sameness = (text: string) => text.replace(/err_[0-9A-Z]+/g, 'err_X');
const wireHeaders = (h: Headers) => ['content-type', 'cache-control', 'connection', 'x-accel-buffering', 'mcp-session-id'].map((k) => [k, h.get(k)]);

describe('the tools/call fast path', () => {
  it('answers one tools/call itself, with the status, headers and JSON body the SDK sends for it', async () => {
    const { headers, sdkRequests } = await session();
    let sdk = 0;
    for (const [name, args] of [
      ['whoami', {}],
      ['no_such_tool', {}],
      ['send_message', { room: 'room_missing', body: 'x' }],
    ] as const) {
      const fast = await rawMcp(s, call(7, name, args), headers);
      expect(sdkRequests()).toBe(sdk);
      // A batch of one is not the hot case: the SDK answers it, on the same session.
      const bySdk = await rawMcp(s, [call(7, name, args)], headers);
      expect(sdkRequests()).toBe(++sdk);
      expect(fast.status).toBe(bySdk.status);
      expect(wireHeaders(fast.headers)).toEqual(wireHeaders(bySdk.headers));
      expect(fast.headers.get('content-type')).toBe('application/json');
      expect(fast.text.startsWith('{"result":{"_meta":{"pending_mentions":')).toBe(true);
      expect(sameness(fast.text)).toBe(sameness(bySdk.text));
    }
  });

  it('keeps string request ids and a progress token, as the SDK does', async () => {
    const { headers, sdkRequests } = await session();
    const withToken = { ...call('req-a', 'whoami'), params: { name: 'whoami', arguments: {}, _meta: { progressToken: 'p1' } } };
    const r = await rawMcp(s, withToken, headers);
    expect(r.status).toBe(200);
    expect(r.text.endsWith('"jsonrpc":"2.0","id":"req-a"}')).toBe(true);
    expect(sdkRequests()).toBe(0);
  });

  it('counts a call and marks the session seen the same way on both paths', async () => {
    const { headers, session: sess, sdkRequests } = await session();
    const { sessions } = s.running.core;
    expect(sess.toolCalls).toBe(0);
    expect(sess.lastToolCallAt).toBeUndefined();
    for (const [body, sdk] of [
      [call(2, 'whoami'), 0],
      [[call(3, 'whoami')], 1],
    ] as const) {
      sess.lastSeen = 0;
      sess.lastToolCallAt = 0;
      await rawMcp(s, body, headers);
      expect(sdkRequests()).toBe(sdk);
      expect(sess.toolCalls).toBe(sdk + 1);
      expect(sess.lastSeen).toBeGreaterThan(0);
      expect(sess.lastToolCallAt).toBeGreaterThan(0);
      expect(sessions.lastToolCallOf(sess.plate)).toBe(sess.lastToolCallAt);
    }
  });

  it('applies the rate limit on both paths', async () => {
    const limited = await startTestServer({ rateLimit: { perSecond: 0.001, burst: 1 } });
    try {
      const a = await limited.agent('Limited');
      const init = await rawMcp(limited, INITIALIZE, { authorization: `Bearer ${a.credential}` });
      const headers = { authorization: `Bearer ${a.credential}`, 'mcp-session-id': init.headers.get('mcp-session-id')! };
      expect((await rawMcp(limited, call(2, 'whoami'), headers)).text).not.toContain('RATE_LIMITED');
      expect((await rawMcp(limited, call(3, 'whoami'), headers)).text).toContain('RATE_LIMITED');
      expect((await rawMcp(limited, [call(4, 'whoami')], headers)).text).toContain('RATE_LIMITED');
    } finally {
      await limited.stop();
    }
  });

  it('leaves every request the SDK would refuse, or that is not one plain tools/call, to the SDK', async () => {
    const { headers, sdkRequests } = await session();
    const cases: Array<[string, unknown, Record<string, string>, number]> = [
      ['Accept without text/event-stream', call(2, 'whoami'), { accept: 'application/json' }, 406],
      ['Content-Type not JSON', call(2, 'whoami'), { 'content-type': 'text/plain' }, 415],
      ['unknown MCP-Protocol-Version', call(2, 'whoami'), { 'mcp-protocol-version': '1999-01-01' }, 400],
      ['a fractional id', call(1.5, 'whoami'), {}, 400],
      ['a key JSON-RPC does not have', { ...call(2, 'whoami'), extra: 1 }, {}, 400],
      ['a tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, {}, 200],
      ['a task-augmented call', { ...call(2, 'whoami'), params: { name: 'whoami', arguments: {}, task: { ttl: 1000 } } }, {}, 200],
      ['Content-Type with parameters', call(2, 'whoami'), { 'content-type': 'application/json; charset=utf-8' }, 200],
    ];
    let expected = 0;
    for (const [what, body, extra, status] of cases) {
      const r = await rawMcp(s, body, { ...headers, ...extra });
      expected++;
      expect([what, r.status, sdkRequests()]).toEqual([what, status, expected]);
    }
  });
});
