// Item 10: MCP sessions cost memory (about 35 KB each) and were uncapped, with `initialize`
// unlimited: one credential opened 5,000 sessions in 5.4 s. The attack is that loop. Now a
// credential holds at most perCredential sessions and the server at most total (the least
// recently used is evicted), and `initialize` is rate-limited per credential.
import { describe, it, expect, afterEach } from 'vitest';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';
import type { TestAgent } from '../helpers/server.js';

// The caps are the core's own rule (mcp/handler.ts openMcpSession, which the in-process app's
// sessions go through too): tested here in process. The initialize rate limit answers on the
// wire (429 with Retry-After): its flood test is in test/integration/abuse-sessions.test.ts.

/** Whether the session still answers: 404 once it was evicted. */
async function live(c: AppClient): Promise<number> {
  try {
    await c.listTools();
    return 200;
  } catch (err) {
    return (err as { code?: number }).code ?? 500;
  }
}

const liveOf = (s: TestApp, a: TestAgent) => s.running.core.sessions.all().filter((x) => x.credentialId === a.credential_id).length;

describe('item 10: MCP session caps', () => {
  let s: TestApp | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  it('sessions are capped per credential and in total; the least recently used is evicted', async () => {
    s = await openTestApp({ mcpSessionLimits: { perCredential: 5, total: 8, initializePerSecond: 0 } });
    const a = await s.agent('Hoarder');
    const sids: AppClient[] = [];
    for (let i = 0; i < 5; i++) sids.push(await s.connect(a.credential));
    // The first session stays in use: it is not the least recently used any more.
    expect(await live(sids[0]!)).toBe(200);
    for (let i = 0; i < 4; i++) sids.push(await s.connect(a.credential));
    await new Promise((r) => setImmediate(r));
    expect(liveOf(s, a)).toBe(5);
    expect(await live(sids[0]!)).toBe(200);
    for (const evicted of sids.slice(1, 5)) expect(await live(evicted)).toBe(404);
    expect(await live(sids[8]!)).toBe(200);

    const others = [await s.agent('Second'), await s.agent('Third')];
    for (const o of others) for (let i = 0; i < 3; i++) await s.connect(o.credential);
    await new Promise((r) => setImmediate(r));
    expect(s.running.core.sessions.size).toBe(8);
    // The newest sessions of every credential are alive; the total cap took the oldest.
    for (const o of others) expect(liveOf(s, o)).toBe(3);
    expect(liveOf(s, a)).toBe(2);
    expect(await live(sids[0]!)).toBe(200);
    expect(await live(sids[8]!)).toBe(200);
  });
});
