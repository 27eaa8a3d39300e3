import { describe, it, expect, afterAll } from 'vitest';
import { join } from 'node:path';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { agentPresence, PRESENCE_RECENT_CALL_MS, PRESENCE_STALLED_MS } from '../../src-main/core/core.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function presenceOf(s: TestServer, plate: string, room: string) {
  const agents = (await s.api('GET', '/v1/agents')).body.agents as any[];
  const members = (await s.api('GET', `/v1/rooms/${room}/members`)).body.agents as any[];
  const one = agents.find((a) => a.plate === plate)?.presence;
  // The same presence everywhere the window and the API show an agent.
  expect(members.find((a) => a.plate === plate)?.presence).toBe(one);
  expect((await s.api('GET', `/v1/agents/${plate}`)).body.presence).toBe(one);
  return one as string;
}

describe('liveness: presence counts tool calls, never health checks or pings', () => {
  it('offline, idle with a live session, working after a tool call, offline again once the session closes', async () => {
    const s = await startTestServer();
    servers.push(s);
    const room = await s.room('Live');
    const a = await s.agent('Watched');
    const b = await s.agent('Watcher');
    await s.join(room, a.plate);
    await s.join(room, b.plate);

    // Health checks do not bring an agent online.
    for (let i = 0; i < 5; i++) expect((await fetch(`${s.baseUrl}/healthz`)).status).toBe(200);
    expect(await presenceOf(s, a.plate, room)).toBe('offline');

    // A live MCP session that only initialised and listed tools (and pings) is idle.
    const ca = await s.connect(a.credential);
    await ca.ping();
    expect(await presenceOf(s, a.plate, room)).toBe('idle');
    const cb = await s.connect(b.credential);
    const roster = async () => ((await ok(cb, 'get_room_context', { room })).roster.agents as any[]).find((x) => x.name === 'Watched');
    expect((await roster()).presence).toBe('idle');

    // A tool call makes it working, for 60 s; then it is idle again.
    await ok(ca, 'whoami');
    expect(await presenceOf(s, a.plate, room)).toBe('working');
    expect(agentPresence(s.running.core, a.plate, Date.now() + PRESENCE_RECENT_CALL_MS + 1000)).toBe('idle');
    expect((await roster()).presence).toBe('working');

    // Closing its last session (the client ends it: DELETE) makes it offline at once.
    await (ca.transport as StreamableHTTPClientTransport).terminateSession();
    await ca.close();
    await waitFor(async () => (await presenceOf(s, a.plate, room)) === 'offline', 'the agent to read offline', 5000);
    expect((await roster()).presence).toBe('offline');
  });
});

describe('liveness: a runner that dies', () => {
  it('SIGKILL of a task run fails its wake within 5 s with the signal and flags the task stale at once, still doing, with no re-wake', async () => {
    const s = await startTestServer();
    servers.push(s);
    const room = await s.room('Dies');
    const a = await s.agent('Mortal');
    const log = join(s.home, 'mortal.log');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    await s.join(room, a.plate);
    const created = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'sleep on it', definition_of_done: 'never', assignee: a.handle });
    expect(created.status).toBe(201);
    const taskId = created.body.task_id;
    const started = await waitFor(() => readRunnerLog(log).find((l) => l.event === 'saw_task'), 'the task run to start');
    expect(await presenceOf(s, a.plate, room)).toBe('working');
    // Seen 5 minutes on with no tool call, the running wake reads stalled (presence takes the time to judge at).
    expect(agentPresence(s.running.core, a.plate, Date.now() + PRESENCE_STALLED_MS + 1000)).toBe('stalled');
    const task = async () => (await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}`)).body;
    expect((await task()).lease.stale).toBe(false);

    const killedAt = Date.now();
    process.kill(started.pid, 'SIGKILL');
    const failed = await waitFor(
      async () => ((await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[]).find((w) => w.task_id === taskId && w.status === 'failed'),
      'the wake to fail',
      10_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(5000);
    expect(failed.reason).toMatch(/SIGKILL/);
    const t = await task();
    expect(t.status).toBe('doing');
    expect(t.lease.stale).toBe(true);
    expect(await presenceOf(s, a.plate, room)).toBe('offline');
    // Nothing wakes the agent again by itself: one run, one wake, the task waits for a human.
    await new Promise((r) => setTimeout(r, 1500));
    expect(((await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[]).filter((w) => w.task_id === taskId)).toHaveLength(1);
    expect(readRunnerLog(log).filter((l) => l.event === 'start')).toHaveLength(1);
    // A human's release brings it back to todo and clears the flag.
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${taskId}/release`)).status).toBe(200);
    expect(await task()).toMatchObject({ status: 'todo', lease: { stale: false } });
  });

  it('a mention run that exits with a code is failed with that code at once', async () => {
    const s = await startTestServer();
    servers.push(s);
    const room = await s.room('Exits');
    const a = await s.agent('Exiter');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(join(s.home, 'x.log')))).status).toBe(200);
    await s.join(room, a.plate);
    expect((await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'fail now', mention_targets: [a.handle] })).status).toBe(201);
    const w = await waitFor(async () => ((await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[]).find((x) => x.status === 'failed'), 'the failure');
    expect(w).toMatchObject({ exit_code: 3, reason: 'the runner exited with code 3' });
  });
});
