import { describe, it, expect, afterAll } from 'vitest';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';
import { agentPresence, PRESENCE_STALLED_MS } from '../../src-main/core/core.js';
import { needsYou } from '../../src-main/core/needs/service.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('POST /v1/wakes/:id/stop: a human stops a running (stalled) wake', () => {
  it('fails the wake with "stopped by <owner>", kills the runner; owner or room admin only (404 for others); a second stop is a conflict; retry requeues it', async () => {
    const s = await startTestServer();
    servers.push(s);
    const me = (await s.api('GET', '/v1/me')).body;
    const room = await s.room('Stops');
    const a = await s.agent('Sleeper');
    const log = join(s.home, 'sleeper.log');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    await s.join(room, a.plate);
    // Another owner, a plain member of the room: it may not even learn the wake exists.
    const other = await s.owner('Bystander');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: other.owner_id, role: 'member' })).status).toBeLessThan(300);
    const stranger = await s.owner('Stranger');

    const created = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'sleep on it', definition_of_done: 'never', assignee: a.handle });
    expect(created.status).toBe(201);
    const started = await waitFor(() => readRunnerLog(log).find((l) => l.event === 'saw_task'), 'the task run to start');
    const wakes = async () => (await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[];
    const running = (await wakes()).find((w) => w.status === 'running');
    expect(running).toBeTruthy();

    // Needs you lists the run once its agent reads stalled (5 minutes without a tool call), with Stop; not before.
    const kinds = async (token?: string) => ((await s.api('GET', '/v1/needs-you', undefined, token)).body.items as any[]).map((i) => i.kind);
    expect(await kinds()).not.toContain('agent_stalled');
    const core = s.running.core;
    const later = (plate: string) => agentPresence(core, plate, Date.now() + PRESENCE_STALLED_MS + 1000) === 'stalled';
    const stalledItems = needsYou(core.db, me.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled');
    expect(stalledItems).toHaveLength(1);
    expect(stalledItems[0]).toMatchObject({ action: 'stop', room: { room_id: room }, wake: { wake_id: running.wake_id, status: 'running' } });
    // Not to a plain member of the room who neither owns the agent nor administers the room.
    expect(needsYou(core.db, other.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled')).toHaveLength(0);

    for (const token of [other.token, stranger.token]) {
      const r = await s.api('POST', `/v1/wakes/${running.wake_id}/stop`, undefined, token);
      expect(r.status).toBe(404);
      expect(r.body.error.error_id).toBeTruthy();
    }
    expect((await s.api('POST', '/v1/wakes/wk_nope/stop')).status).toBe(404);
    expect(alive(started.pid)).toBe(true);

    const stopped = await s.api('POST', `/v1/wakes/${running.wake_id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ wake_id: running.wake_id, status: 'failed', reason: `stopped by ${me.name}` });
    // The runner's process is gone, and its end does not overwrite the reason.
    await waitFor(() => !alive(started.pid), 'the runner process to end', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await wakes()).find((w) => w.wake_id === running.wake_id)).toMatchObject({ status: 'failed', reason: `stopped by ${me.name}` });

    // Stopped, it is a failed wake in Needs you (Retry = requeue), no longer a stalled one.
    expect(await kinds()).toContain('wake_failed');
    expect(needsYou(core.db, me.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled')).toHaveLength(0);

    const again = await s.api('POST', `/v1/wakes/${running.wake_id}/stop`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ reason: 'not_running' });
    expect(again.body.error.error_id).toBeTruthy();

    // Requeue: the failed wake's retry.
    const retried = await s.api('POST', `/v1/wakes/${running.wake_id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.wake_id).toBeTruthy();
    await waitFor(() => readRunnerLog(log).filter((l) => l.event === 'saw_task').length === 2, 'the requeued run to start', 10_000);
    const again2 = (await wakes()).find((w) => w.status === 'running');
    expect(again2?.wake_id).not.toBe(running.wake_id);
    expect((await s.api('POST', `/v1/wakes/${again2.wake_id}/stop`)).status).toBe(200);
  });
});
