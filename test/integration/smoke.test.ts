import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';

describe('smoke', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s.stop());

  it('an agent connects, sees its identity and posts a message', async () => {
    const a = await s.agent('Reviewer');
    const room = await s.room('Main');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const me = await ok(c, 'whoami');
    expect(me.plate).toBe(a.plate);
    const m = await ok(c, 'send_message', { room, body: 'hello' });
    expect(m.seq).toBe(1);
    const h = await ok(c, 'read_room', { room });
    expect(h.messages.map((x: any) => x.body)).toEqual(['hello']);
  });
});
