// GET /v1/rooms/:id/deliveries (messages/deliveries.ts): what became of each agent a message
// mentions, as the window shows it under the message (docs/ui.md "Wake status per message").
// A real server on a temp home; the mentions are sent as a human through /v1.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.stop());

async function mention(room: string, handle: string, body = `${handle} hello`) {
  const r = await s.api('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [handle] });
  expect(r.status).toBe(201);
  return r.body as { message_id: string; wakes: Array<{ status: string; reason: string | null }> };
}

const deliveries = async (room: string, ids: string[], token?: string) => s.api('GET', `/v1/rooms/${room}/deliveries?message_ids=${ids.join(',')}`, undefined, token);

async function until<T>(f: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('what became of each mention, under the message', () => {
  it('an agent nothing can wake: "inbox" with the reason the message response gave, not "queued", and its wake', async () => {
    const a = await s.agent('Idle');
    const room = await s.room('Deliveries idle');
    await s.join(room, a.plate);
    const m = await mention(room, a.handle);
    expect(m.wakes[0]!.status).toBe('inbox');
    const r = await deliveries(room, [m.message_id]);
    expect(r.status).toBe(200);
    const [d] = r.body.messages;
    expect(d.message_id).toBe(m.message_id);
    expect(d.wakes).toHaveLength(1);
    expect(d.wakes[0]).toMatchObject({ plate: a.plate, handle: a.handle, status: 'inbox', target: 'pull', reason: m.wakes[0]!.reason });
    expect(d.wakes[0].reason).toMatch(/no runner and no live channel session/);
    expect(d.wakes[0].wake).toMatchObject({ status: 'queued', target: 'pull', message_id: m.message_id });
    expect(r.body.covered_from).toBe('');
  });

  it('an agent without INVOKE: "inbox", no wake, and why', async () => {
    const a = await s.agent('Reader', { scopes: ['READ', 'WRITE'] });
    const room = await s.room('Deliveries no invoke');
    await s.join(room, a.plate);
    const m = await mention(room, a.handle);
    const r = await deliveries(room, [m.message_id]);
    expect(r.body.messages[0].wakes[0]).toMatchObject({ status: 'inbox', wake_id: null, wake: null });
    expect(r.body.messages[0].wakes[0].reason).toMatch(/does not hold INVOKE/);
  });

  it('a failed run: its one-line cause, and Retry among the acts allowed', async () => {
    const a = await s.agent('Broken');
    const missing = join(s.home, 'no-such-host-cli');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, { command: missing })).status).toBe(200);
    const room = await s.room('Deliveries failed');
    await s.join(room, a.plate);
    const m = await mention(room, a.handle);
    const d = await until(async () => {
      const w = (await deliveries(room, [m.message_id])).body.messages[0]?.wakes[0];
      return w?.status === 'failed' ? w : undefined;
    }, 'the failed wake');
    expect(d.wake.cause).toBe(`${missing} does not exist on the server; install it there or correct the runner's command`);
    expect(d.wake.allowed_actions).toContain('retry');
  });

  it('messages without agent mentions, unknown ids and another room\'s messages are left out; ids are bounded', async () => {
    const a = await s.agent('Elsewhere');
    const room = await s.room('Deliveries mixed');
    const other = await s.room('Deliveries other');
    await s.join(other, a.plate);
    const plain = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'no mentions here' });
    const theirs = await mention(other, a.handle);
    const r = await deliveries(room, [plain.body.message_id, 'msg_nope', theirs.message_id, ...Array.from({ length: 300 }, (_x, i) => `msg_${i}`)]);
    expect(r.status).toBe(200);
    expect(r.body.messages).toEqual([]);
  });

  it('a room the caller is not in is not found', async () => {
    const bob = await s.owner('Bob deliveries');
    const room = await s.room('Deliveries private');
    expect((await deliveries(room, ['msg_x'], bob.token)).status).toBe(404);
  });
});
