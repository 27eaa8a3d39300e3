// Issue 26 F2: FTS5 snippet() cost grew with query words × entry length: 8 words over 20k-character
// messages froze the server 3 s, 32 words 51 s, for any member with READ. The attack: a member fills
// a room with long messages holding every word, then searches for many of them, while a concurrent
// GET /healthz measures the event loop (test/helpers/loop-probe.ts). Also: too many words or terms
// are a clear INVALID_ARGUMENT, and task and file hits carry their own snippet, title, path and name.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, fails, type TestServer } from '../helpers/server.js';
import { agentInRoom } from '../helpers/seat.js';
import { probeLoop, PROBE_ATTACK_MAX_MS, PROBE_LATENCY_MAX_MS } from '../helpers/loop-probe.js';

const WORDS = Array.from({ length: 32 }, (_x, i) => `w${i}x${'abcdefghijklmnopqrstuvwxyz'[i % 26]}`);
const LONG = WORDS.join(' ').repeat(Math.ceil(20_000 / (WORDS.join(' ').length + 1))).slice(0, 20_000);

const report = (name: string, p: { attackMs: number; maxLatencyMs: number }) =>
  console.log(`[figure] ${name}: attack ${p.attackMs.toFixed(0)} ms, worst concurrent latency ${p.maxLatencyMs.toFixed(0)} ms`);

describe('issue 26 F2: search cannot stall the server', () => {
  let s: TestServer;
  let c: Client;
  let room: string;
  let plate: string;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    ({ agent: { plate }, room, c } = await agentInRoom(s, 'Searcher', 'Long messages'));
    for (let i = 0; i < 100; i++) await ok(c, 'send_message', { room, body: `${i} ${LONG}` });
  }, 120_000);
  afterAll(() => s?.stop());

  it.each([8, 16])('%i words over 100 messages of 20,000 characters (MCP and /v1)', async (n) => {
    const query = WORDS.slice(0, n).join(' ');
    const p = await probeLoop(s.baseUrl, async () => {
      const viaTool = await ok(c, 'search', { room, query, limit: 100 });
      const viaApi = await s.api('GET', `/v1/rooms/${room}/search?q=${encodeURIComponent(query)}&limit=100`);
      return { viaTool, viaApi };
    });
    report(`F2 search, ${n} words x 100 messages of 20k chars (tool + route, limit 100)`, p);
    expect(p.maxLatencyMs).toBeLessThan(PROBE_LATENCY_MAX_MS);
    expect(p.attackMs).toBeLessThan(PROBE_ATTACK_MAX_MS);
    expect(p.result.viaTool.results.length).toBe(100);
    expect(p.result.viaApi.status).toBe(200);
    const hit = p.result.viaTool.results[0];
    expect(hit.highlights.length).toBeGreaterThan(0);
    expect(hit.snippet.length).toBeLessThan(400);
  });

  it('32 words (or a word of many terms) is a clear INVALID_ARGUMENT, not a long wait', async () => {
    const p = await probeLoop(s.baseUrl, () => fails(c, 'search', { room, query: WORDS.join(' ') }));
    report('F2 search, 32 words', p);
    expect(p.maxLatencyMs).toBeLessThan(PROBE_LATENCY_MAX_MS);
    expect(p.result.code).toBe('INVALID_ARGUMENT');
    expect(p.result.message).toMatch(/words/);
    const terms = await fails(c, 'search', { room, query: Array.from({ length: 40 }, (_x, i) => `t${i}`).join('_') });
    expect(terms.code).toBe('INVALID_ARGUMENT');
    const api = await s.api('GET', `/v1/search?q=${encodeURIComponent(WORDS.join(' '))}`);
    expect(api.status).toBe(400);
    expect(api.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('task and file hits carry their own snippet, and title (task) or path and name (file)', async () => {
    const t = await ok<any>(c, 'create_task', { room, title: 'Zebra crossing audit', definition_of_done: 'done', assignee: plate, detail: 'check the zebra stripes near the depot' });
    await ok(c, 'write_file', { room, path: 'notes/zebra.md', content: 'the zebra file speaks of stripes' });
    await ok(c, 'send_message', { room, body: 'a message that mentions a zebra once' });
    const r = await ok<any>(c, 'search', { room, query: 'zebra' });
    const task = r.results.find((x: any) => x.kind === 'task');
    const file = r.results.find((x: any) => x.kind === 'file');
    expect(task).toMatchObject({ title: 'Zebra crossing audit', task_id: t.task_id ?? t.task?.task_id });
    expect(task.snippet).toMatch(/zebra/i);
    expect(task.snippet).not.toMatch(/message that mentions/);
    expect(file).toMatchObject({ path: 'notes/zebra.md', name: 'zebra.md' });
    expect(file.snippet).toMatch(/zebra file speaks/);
    // /v1/search (no room) searches every room the caller is in, with the same shape.
    const all = await s.api('GET', `/v1/search?q=zebra`);
    expect(all.status).toBe(200);
    expect(all.body.results.find((x: any) => x.kind === 'file')).toMatchObject({ path: 'notes/zebra.md', name: 'zebra.md', room });
  });
});
