// Item 10: MCP sessions cost memory (about 35 KB each) and were uncapped, with `initialize`
// unlimited: one credential opened 5,000 sessions in 5.4 s. The attack is that loop. Now a
// credential holds at most perCredential sessions and the server at most total (the least
// recently used is evicted), and `initialize` is rate-limited per credential.
import { describe, it, expect, afterEach } from 'vitest';
import { startTestServer, type TestServer, type TestAgent } from '../helpers/server.js';
import { DEFAULT_MCP_SESSION_LIMITS } from '../../src-main/core/core.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } } };

async function initialize(s: TestServer, credential: string): Promise<{ status: number; sid: string | null; retryAfter: string | null }> {
  const r = await fetch(`${s.baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(INIT),
  });
  await r.text();
  return { status: r.status, sid: r.headers.get('mcp-session-id'), retryAfter: r.headers.get('retry-after') };
}

async function ping(s: TestServer, credential: string, sid: string): Promise<number> {
  const r = await fetch(`${s.baseUrl}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await r.text();
  return r.status;
}

const liveOf = (s: TestServer, a: TestAgent) => s.running.core.sessions.all().filter((x) => x.credentialId === a.credential_id).length;

describe('item 10: MCP session caps and the initialize rate limit', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it('a loop of initialize calls from one credential is rate-limited and never holds more than the cap', async () => {
    s = await startTestServer();
    const a = await s.agent('Flooder');
    const b = await s.agent('Bystander');
    const started = Date.now();
    const results = [];
    for (let i = 0; i < 10; i++) results.push(...(await Promise.all(Array.from({ length: 20 }, () => initialize(s!, a.credential)))));
    const elapsedS = (Date.now() - started) / 1000;
    const okCount = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.every((r) => Number(r.retryAfter) >= 1)).toBe(true);
    // No more than the bucket allows over the time the loop took (no fixed timing threshold).
    const { initializeBurst, initializePerSecond, perCredential } = DEFAULT_MCP_SESSION_LIMITS;
    expect(okCount).toBeLessThanOrEqual(initializeBurst + Math.ceil(elapsedS * initializePerSecond) + 1);
    expect(liveOf(s, a)).toBeLessThanOrEqual(perCredential);
    // Another credential is not affected by the flood.
    expect((await initialize(s, b.credential)).status).toBe(200);
  });

  it('sessions are capped per credential and in total; the least recently used is evicted', async () => {
    s = await startTestServer({ mcpSessionLimits: { perCredential: 5, total: 8, initializePerSecond: 0 } });
    const a = await s.agent('Hoarder');
    const sids: string[] = [];
    for (let i = 0; i < 5; i++) sids.push((await initialize(s, a.credential)).sid!);
    // The first session stays in use: it is not the least recently used any more.
    expect(await ping(s, a.credential, sids[0]!)).toBe(200);
    for (let i = 0; i < 4; i++) sids.push((await initialize(s, a.credential)).sid!);
    await new Promise((r) => setImmediate(r));
    expect(liveOf(s, a)).toBe(5);
    expect(await ping(s, a.credential, sids[0]!)).toBe(200);
    for (const evicted of sids.slice(1, 5)) expect(await ping(s, a.credential, evicted)).toBe(404);
    expect(await ping(s, a.credential, sids[8]!)).toBe(200);

    const others = [await s.agent('Second'), await s.agent('Third')];
    for (const o of others) for (let i = 0; i < 3; i++) expect((await initialize(s, o.credential)).status).toBe(200);
    await new Promise((r) => setImmediate(r));
    expect(s.running.core.sessions.size).toBe(8);
    // The newest sessions of every credential are alive; the total cap took the oldest.
    for (const o of others) expect(liveOf(s, o)).toBe(3);
    expect(liveOf(s, a)).toBe(2);
    expect(await ping(s, a.credential, sids[0]!)).toBe(200);
    expect(await ping(s, a.credential, sids[8]!)).toBe(200);
  });
});
