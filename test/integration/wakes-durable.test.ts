import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer, type ChildServer } from '../helpers/child.js';
import { startTestServer, ok } from '../helpers/server.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';
import { waitFor } from '../helpers/core.js';

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('wakes: durable across crashes and shutdowns', () => {
  const homes: string[] = [];
  const children: ChildServer[] = [];
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) await c.kill();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it('after a SIGKILL the queued wakes run once and the running one is failed with a reason', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-crash-'));
    homes.push(home);
    const log = join(home, 'runner.log');
    const first = await spawnServer(home);
    children.push(first);
    const call = (m: string, p: string, b?: unknown) => api(first.baseUrl, first.ownerToken, m, p, b);
    const agent = (await call('POST', '/v1/agents', { name: 'Survivor' })).body;
    expect((await call('PUT', `/v1/agents/${agent.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    const room = (await call('POST', '/v1/rooms', { name: 'Crash room' })).body.room_id;
    expect((await call('POST', `/v1/rooms/${room}/members`, { plate: agent.plate })).status).toBe(201);
    const say = async (body: string) => {
      const r = await call('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [agent.handle] });
      expect(r.status).toBe(201);
    };

    await say('sleep until the server dies');
    await waitFor(() => readRunnerLog(log).some((l) => l.event === 'start'), 'the sleeping run to start');
    await say('after one');
    await say('after two');
    const before = (await call('GET', `/v1/agents/${agent.plate}/wakes`)).body.wakes as any[];
    expect(before.map((w) => w.status)).toEqual(['queued', 'queued', 'running']);

    await first.kill();
    const second = await spawnServer(home);
    children.push(second);
    const call2 = (m: string, p: string, b?: unknown) => api(second.baseUrl, second.ownerToken, m, p, b);

    const after = await waitFor(async () => {
      const ws = (await call2('GET', `/v1/agents/${agent.plate}/wakes`)).body.wakes as any[];
      return ws.every((w) => w.status === 'handled' || w.status === 'failed') && ws;
    }, 'every wake to end');
    expect(after.map((w) => w.status)).toEqual(['handled', 'handled', 'failed']);
    expect(after[2].reason).toBe('server restarted while the wake was running');

    const starts = readRunnerLog(log)
      .filter((l) => l.event === 'start')
      .map((l) => l.stdin);
    expect(starts).toEqual(['sleep until the server dies', 'after one', 'after two']);
    const history = (await call2('GET', `/v1/rooms/${room}/messages`)).body.messages.map((m: any) => m.body);
    expect(history).toEqual(['sleep until the server dies', 'after one', 'after two', 'reply: after one', 'reply: after two']);
    // The orphaned run's credential was revoked at restart.
    const creds = (await call2('GET', `/v1/agents/${agent.plate}/credentials`)).body.credentials as any[];
    expect(creds.filter((c) => c.purpose === 'runner').every((c) => c.revoked)).toBe(true);
    expect(await second.stop()).toBe(0);
  });

  it('a graceful shutdown kills running runners and fails their wakes with a reason', async () => {
    const home = mkdtempSync(join(tmpdir(), 'agent-rooms-shutdown-'));
    homes.push(home);
    const log = join(home, 'runner.log');
    const s = await startTestServer({ home });
    const a = await s.agent('Interrupted');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    const room = await s.room('Shutdown room');
    await s.join(room, a.plate);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'sleep through it', mention_targets: [a.handle] });
    const start = await waitFor(() => readRunnerLog(log).find((l) => l.event === 'start'), 'the run to start');
    await s.stop();
    expect(isAlive(start.pid)).toBe(false);

    const again = await startTestServer({ home });
    const ws = (await again.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[];
    expect(ws.map((w) => [w.status, w.reason])).toEqual([['failed', 'server shut down while the runner was running']]);
    await again.stop();
  });

  it('a pushed wake nobody acts on is failed after the channel timeout', async () => {
    process.env.AGENT_ROOMS_CHANNEL_TIMEOUT_MS = '300';
    const s = await startTestServer();
    try {
      const a = await s.agent('Idle');
      const room = await s.room('Idle room');
      await s.join(room, a.plate);
      // Opted in to channel delivery (a plain claude-code session is never pushed to).
      const c = await s.connect(a.credential, 'claude-code', { query: '?channels=1' });
      let pushes = 0;
      c.fallbackNotificationHandler = async (n) => {
        if (n.method === 'notifications/claude/channel') pushes++;
      };
      await waitFor(async () => (await s.api('GET', `/v1/rooms/${room}/members`)).body.instances.some((i: any) => i.streaming), 'the GET stream');
      await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'ping', mention_targets: [a.handle] });
      const w = await waitFor(async () => (await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes.find((x: any) => x.status === 'failed'), 'the failed wake');
      expect(w.reason).toBe('the pushed session did not act in the room within 300 ms');
      expect(pushes).toBe(1);
      // Acting later changes nothing: the wake stays failed.
      await ok(c, 'send_message', { room, body: 'late' });
      expect((await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes[0].status).toBe('failed');
    } finally {
      delete process.env.AGENT_ROOMS_CHANNEL_TIMEOUT_MS;
      await s.stop();
    }
  });
});
