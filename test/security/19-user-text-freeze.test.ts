// Issue 26, the general rule: no request holds the event loop, whatever its text. Beyond patterns
// and search (15, 16), every other tool that parses user text gets its adversarial input here while
// a concurrent GET /healthz measures the loop (test/helpers/loop-probe.ts): message bodies and
// mention targets (handles), file paths, contents (indexed for search) and list prefixes, task
// titles and details, handles to resolve. Figures are printed; the bounds asserted are generous.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { agentInRoom } from '../helpers/seat.js';
import { probeLoop, PROBE_ATTACK_MAX_MS, PROBE_LATENCY_MAX_MS } from '../helpers/loop-probe.js';

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

describe('issue 26: no user text freezes the server', () => {
  let s: TestServer;
  let c: Client;
  let room: string;
  let plate: string;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    ({ agent: { plate }, room, c } = await agentInRoom(s, 'Fuzzer', 'Texts'));
  });
  afterAll(() => s?.stop());

  // [what, tool, arguments]: each call may succeed or fail with a structured error, never freeze.
  const ATTACKS: Array<[string, string, () => Record<string, unknown>]> = [
    ['message body of nested markdown and mention-like text (60 KiB)', 'send_message', () => ({ room, body: fill('[[*_`@a(b)#c ', 60 * 1024) })],
    ['message body of one 60 KiB word', 'send_message', () => ({ room, body: 'x'.repeat(60 * 1024) })],
    ['50 mention targets of adversarial handles', 'send_message', () => ({ room, body: 'hi', mention_targets: Array.from({ length: 50 }, (_x, i) => `@${fill('a-', 39)}(${fill('b-', 39)})#${i}${'c'.repeat(30)}`) })],
    ['a file path of 1,000 characters of short segments', 'write_file', () => ({ room, path: fill('a/', 999) + 'b', content: 'x' })],
    ['a file path of one long segment with dots and spaces', 'write_file', () => ({ room, path: fill('a. ', 250) + 'x', content: 'x' })],
    ['file content of 256 KiB of words (indexed for search)', 'write_file', () => ({ room, path: 'big/words.txt', content: fill('alpha beta_gamma délta 🙂 ', 256 * 1024 - 64) })],
    ['file content of 256 KiB of punctuation', 'write_file', () => ({ room, path: 'big/punct.txt', content: fill('.,;:!?-_()[]{}', 256 * 1024 - 64) })],
    ['a list_files prefix of 1,024 characters', 'list_files', () => ({ room, prefix: fill('a/', 1024) })],
    ['a task with a long title and a 60 KiB detail', 'create_task', () => ({ room, title: fill('title ', 200), definition_of_done: fill('done ', 1000), assignee: plate, detail: fill('[x](y) **', 60 * 1024) })],
    ['a handle of 120 adversarial characters', 'resolve_handle', () => ({ room, handle: `@${fill('a-', 60)}` })],
    ['a search query of 1,000 characters of punctuation and symbols', 'search', () => ({ room, query: fill('"*^:()-+ 🙂', 1000) })],
  ];

  it.each(ATTACKS)('%s', async (what, tool, args) => {
    const p = await probeLoop(s.baseUrl, () => c.callTool({ name: tool, arguments: args() }));
    console.log(`[figure] ${tool}, ${what}: attack ${p.attackMs.toFixed(0)} ms, worst concurrent latency ${p.maxLatencyMs.toFixed(0)} ms`);
    expect(p.maxLatencyMs).toBeLessThan(PROBE_LATENCY_MAX_MS);
    expect(p.attackMs).toBeLessThan(PROBE_ATTACK_MAX_MS);
    if (p.result.isError) expect((p.result.structuredContent as any).error.error_id).toMatch(/^err_/);
  });
});
