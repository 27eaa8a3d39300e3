// Issue 26, the general rule: no request holds the event loop, whatever its text. Beyond patterns
// and search (15, 16), every other tool that parses user text gets its adversarial input here while
// a concurrent GET /healthz, sent as the attack starts, waits for its answer (test/helpers/loop-probe.ts): message bodies and
// mention targets (handles), file paths, contents (indexed for search) and list prefixes, task
// titles and details, handles to resolve. Each attack runs in the in-process app (test/helpers/app.ts)
// while test/helpers/loop-probe.ts measures how long the event loop was held and how long that
// request waited (both printed). What is
// asserted is the outcome, pinned per attack: taken, or refused with the code and the reason that
// name the bound it crossed (sizes, depth, words, handle shape, membership); the only time bound is LOOP_HELD_MAX_MS, far above a loaded machine's need, far below the old freezes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import { agentInRoom } from '../helpers/seat.js';
import { probeLoopAndRequest, reportWithRequest, startHealthServer, LOOP_HELD_MAX_MS } from '../helpers/loop-probe.js';

const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

describe('issue 26: no user text freezes the server', () => {
  let s: TestApp;
  let c: AppClient;
  let room: string;
  let plate: string;
  let health: Awaited<ReturnType<typeof startHealthServer>>;

  beforeAll(async () => {
    s = await openTestApp({ rateLimit: { perSecond: 0, burst: 0 } });
    health = await startHealthServer();
    ({ agent: { plate }, room, c } = await agentInRoom(s, 'Fuzzer', 'Texts'));
  });
  afterAll(async () => {
    await health?.close();
    await s?.stop();
  });

  // [what, tool, arguments, outcome]: `ok`, or the structured error's `code/reason` (the bound that refused it), never a freeze.
  const ATTACKS: Array<[string, string, () => Record<string, unknown>, string]> = [
    ['message body of nested markdown and mention-like text (60 KiB)', 'send_message', () => ({ room, body: fill('[[*_`@a(b)#c ', 60 * 1024) }), 'ok'],
    ['message body of one 60 KiB word', 'send_message', () => ({ room, body: 'x'.repeat(60 * 1024) }), 'ok'],
    ['50 mention targets of adversarial handles', 'send_message', () => ({ room, body: 'hi', mention_targets: Array.from({ length: 50 }, (_x, i) => `@${fill('a-', 39)}(${fill('b-', 39)})#${i}${'c'.repeat(30)}`) }), 'INVALID_ARGUMENT/unknown_mention_target'],
    ['a file path of 1,000 characters of short segments', 'write_file', () => ({ room, path: fill('a/', 999) + 'b', content: 'x' }), 'INVALID_ARGUMENT/bad_path'],
    ['a file path of one long segment with dots and spaces', 'write_file', () => ({ room, path: fill('a. ', 250) + 'x', content: 'x' }), 'ok'],
    ['file content of 256 KiB of words (indexed for search)', 'write_file', () => ({ room, path: 'big/words.txt', content: fill('alpha beta_gamma délta 🙂 ', 256 * 1024 - 64) }), 'PAYLOAD_TOO_LARGE/use_share_file'],
    ['file content of 256 KiB of punctuation', 'write_file', () => ({ room, path: 'big/punct.txt', content: fill('.,;:!?-_()[]{}', 256 * 1024 - 64) }), 'ok'],
    ['a list_files prefix of 1,024 characters', 'list_files', () => ({ room, prefix: fill('a/', 1024) }), 'ok'],
    ['a task with a long title and a 60 KiB detail', 'create_task', () => ({ room, title: fill('title ', 200), definition_of_done: fill('done ', 1000), assignee: plate, detail: fill('[x](y) **', 60 * 1024) }), 'INVALID_ARGUMENT'],
    ['a handle of 120 adversarial characters', 'resolve_handle', () => ({ room, handle: `@${fill('a-', 60)}` }), 'INVALID_ARGUMENT/bad_handle'],
    ['a search query of 1,000 characters of punctuation and symbols', 'search', () => ({ room, query: fill('"*^:()-+ 🙂', 1000) }), 'INVALID_ARGUMENT/too_many_words'],
  ];

  it.each(ATTACKS)('%s', async (what, tool, args, outcome) => {
    const p = await probeLoopAndRequest(() => c.callTool({ name: tool, arguments: args() }), health.url);
    reportWithRequest(`${tool}, ${what}`, p);
    expect(p.request.status).toBe(200);
    const error = p.result.isError ? (p.result.structuredContent as any).error : undefined;
    expect(error ? [error.code, error.reason].filter(Boolean).join('/') : 'ok').toBe(outcome);
    if (error) expect(error.error_id).toMatch(/^err_/);
    expect(p.maxHeldMs).toBeLessThan(LOOP_HELD_MAX_MS);
  });
});
