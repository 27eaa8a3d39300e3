import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ok, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';

/**
 * docs/wakes.md "Liveness": an agent with no live session that a mention can wake (a runner its
 * owner may run) is `asleep`; `offline` is only for agents nothing can wake. The same word in
 * every place that shows presence: /v1/agents, /v1/agents/:plate, the members, get_room_context.
 */
describe('presence asleep', () => {
  let s: TestServer;
  let room: string;
  const runner = { command: process.execPath, args: ['-e', 'process.exit(0)'] };

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('Presence');
  });
  afterAll(() => s?.stop());

  async function presence(plate: string, token?: string): Promise<string> {
    const one = ((await s.api('GET', '/v1/agents', undefined, token)).body.agents as Array<{ plate: string; presence: string }>).find((a) => a.plate === plate)?.presence;
    expect((await s.api('GET', `/v1/agents/${plate}`, undefined, token)).body.presence).toBe(one);
    const members = (await s.api('GET', `/v1/rooms/${room}/members`)).body.agents as Array<{ plate: string; presence: string }>;
    expect(members.find((a) => a.plate === plate)?.presence).toBe(one);
    return one!;
  }

  it('offline with nothing to wake it; asleep once it has a runner; idle with a live session; asleep again when the session closes; offline when the runner goes', async () => {
    const a = await s.agent('Sleeper');
    const watcher = await s.agent('Watcher');
    await s.join(room, a.plate);
    await s.join(room, watcher.plate);
    expect(await presence(a.plate)).toBe('offline');

    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner)).status).toBe(200);
    expect(await presence(a.plate)).toBe('asleep');
    const w = await s.connect(watcher.credential);
    const roster = async () => ((await ok(w, 'get_room_context', { room })).roster.agents as Array<{ name: string; presence: string }>).find((x) => x.name === 'Sleeper')!.presence;
    expect(await roster()).toBe('asleep');

    const c = await s.connect(a.credential);
    expect(await presence(a.plate)).toBe('idle');
    await (c.transport as StreamableHTTPClientTransport).terminateSession();
    await c.close();
    await waitFor(async () => (await presence(a.plate)) === 'asleep', 'the agent to read asleep');

    expect((await s.api('DELETE', `/v1/agents/${a.plate}/runners/codex`)).status).toBe(200);
    expect(await presence(a.plate)).toBe('offline');
    expect(await roster()).toBe('offline');
  });

  it('an owner whose runners the primary owner no longer allows: nothing can wake the agent, so it is offline', async () => {
    const bea = await s.owner('Bea');
    expect((await s.api('PATCH', `/v1/owners/${bea.owner_id}`, { allow_runners: true })).status).toBe(200);
    const b = await s.agent('Bea bot', { token: bea.token });
    expect((await s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, runner, bea.token)).status).toBe(200);
    const of = async () => ((await s.api('GET', `/v1/agents/${b.plate}`, undefined, bea.token)).body as { presence: string }).presence;
    expect(await of()).toBe('asleep');
    expect((await s.api('PATCH', `/v1/owners/${bea.owner_id}`, { allow_runners: false })).status).toBe(200);
    expect(await of()).toBe('offline');
  });
});
