import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';
import { spawnServer, type ChildServer } from '../helpers/child.js';
import { waitFor } from '../helpers/core.js';
import { agentPresence, PRESENCE_RECENT_CALL_MS, PRESENCE_STALLED_MS } from '../../src-main/core/core.js';
import { needsYou } from '../../src-main/core/needs/service.js';
import { dispatcherOf } from '../../src-main/core/wakes/dispatcher.js';
import { fixtureRunner, readRunnerLog, runnerRig } from './wakes-helpers.js';

/**
 * The wakes whose subject is a real process or the server's own life (docs/testing.md "Wakes in
 * process"): runners spawned as child processes that call back over MCP HTTP (their env, argv,
 * working folder, output tails, timeout and kill), the presets' host CLIs, a human's Stop, a
 * runner or a server that dies, a restart with `serve --wake-budget`, and presence over HTTP.
 * The rules of the queue (limits, consent, outcomes, order) run in process in the other
 * wakes-*.test.ts files.
 */

// One server for every test that does not stop, kill or restart it (each test makes its own
// agents and rooms): the spawned runners, a human's Stop, presence, the channel timeout and the
// presets. The server's life (SIGKILL, shutdown, restart) has servers of its own below.
const rig = runnerRig(() => startTestServer({ rateLimit: { perSecond: 0, burst: 1 } }));

describe('wakes over HTTP: spawned runners', () => {
  describe('wakes: spawned runners (the process runner)', () => {
    it('a mention spawns the runner, which connects back with the MCP client and replies in the room', async () => {
      const a = await rig.runnerAgent('Replier');
      const room = await rig.s.room('Reply room');
      await rig.s.join(room, a.plate);
      const body = 'please look at the parser\n  (two spaces, "quotes")';
      const msg = await rig.mention(room, a.handle, body);

      const reply = await waitFor(async () => {
        const h = await rig.s.api('GET', `/v1/rooms/${room}/messages`);
        return (h.body.messages as any[]).find((m) => m.sender.plate === a.plate);
      }, 'the runner reply');
      expect(reply.body).toBe(`reply: ${body}`);

      const [w] = await waitFor(async () => {
        const ws = await rig.wakesOf(a.plate);
        return ws.length === 1 && ws[0].status === 'handled' && ws;
      }, 'the wake to be handled');
      expect(w).toMatchObject({ trigger: 'mention', target: 'runner', host: 'codex', message_id: msg.message_id, exit_code: 0, no_tool_call: false });
      expect(w.tool_calls).toBeGreaterThanOrEqual(1);

      const start = readRunnerLog(a.log).find((l) => l.event === 'start')!;
      expect(start.stdin).toBe(body); // nothing injected: the raw body only
      expect(start.has_key).toBe(true);
      expect(start.wake).toEqual({
        wake_id: w.wake_id,
        plate: a.plate,
        handle: a.handle,
        room,
        host: 'codex',
        trigger: 'mention',
        context_version: w.context_version,
        message_id: msg.message_id,
      });
      expect(typeof start.wake.context_version).toBe('number');
      // With no workspace configured the runner works in a per-agent scratch folder, never in the
      // data home (issue 14, docs/security.md item 1; it used to be the home).
      expect(start.cwd).not.toBe(rig.s.home);
      expect(start.cwd).toBe(join(tmpdir(), `agent-rooms-runs-${process.getuid!()}`, a.plate));

      // The run's credential was deleted when the run ended (no revoked row left behind per wake;
      // the wake log keeps the audit), so it authenticates nothing.
      const creds = (await rig.s.api('GET', `/v1/agents/${a.plate}/credentials`)).body.credentials as any[];
      expect(creds.filter((c) => c.purpose === 'runner')).toEqual([]);

      // The room's wake log shows the same wake.
      const roomLog = await rig.s.api('GET', `/v1/rooms/${room}/wakes`);
      expect(roomLog.body.wakes.map((x: any) => x.wake_id)).toEqual([w.wake_id]);
    });

    it('a human reassignment wakes the new assignee with the task; the old assignee is no longer woken for it', async () => {
      const first = await rig.s.agent('Dropped');
      const next = await rig.runnerAgent('Picked');
      const room = await rig.s.room('Reassign room');
      await rig.s.join(room, first.plate);
      await rig.s.join(room, next.plate);
      const t = await rig.s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Port it', definition_of_done: 'ported', assignee: first.handle });
      expect(t.status).toBe(201);
      // The first assignee has no runner and no session: its wake waits for pull.
      await waitFor(async () => (await rig.wakesOf(first.plate)).find((w) => w.target === 'pull'), 'the pull wake');
      const r = await rig.s.api('POST', `/v1/rooms/${room}/tasks/${t.body.task_id}/assign`, { assignee: next.handle });
      expect(r.status).toBe(200);
      const done = await waitFor(async () => {
        const x = await rig.s.api('GET', `/v1/rooms/${room}/tasks/${t.body.task_id}`);
        return x.body.status === 'done' && x.body;
      }, 'the reassigned task to be done');
      expect(done.assignee).toBe(next.plate);
      const start = readRunnerLog(next.log).find((l) => l.event === 'start')!;
      expect(start.wake).toMatchObject({ trigger: 'assignment', task_id: t.body.task_id });
      expect(JSON.parse(start.stdin!).task).toMatchObject({ task_id: t.body.task_id, assignee: next.plate });

      // The old assignee's wake is dropped, never delivered, even to a session that connects now.
      const cc = await rig.s.connect(first.credential, 'claude-code');
      let pushes = 0;
      cc.fallbackNotificationHandler = async () => {
        pushes++;
      };
      const old = await waitFor(async () => (await rig.wakesOf(first.plate)).find((w) => w.status === 'failed'), 'the stale wake to be dropped');
      expect(old.reason).toBe('the task was reassigned to another agent');
      // The window keys on the code, never on the words (WakesView's "skipped").
      expect(old.reason_code).toBe('task_reassigned');
      expect(pushes).toBe(0);
    });

    it('a failing runner is failed with its output tails kept and the credential masked', async () => {
      const a = await rig.runnerAgent('Failing');
      const room = await rig.s.room('Fail room');
      await rig.s.join(room, a.plate);
      await rig.mention(room, a.handle, 'fail now');
      const w = await waitFor(async () => (await rig.wakesOf(a.plate)).find((x) => x.status === 'failed'), 'the failed wake');
      expect(w.reason).toBe('the runner exited with code 3');
      expect(w.exit_code).toBe(3);
      expect(w.stdout_tail).toContain(`connecting to ${rig.s.baseUrl}/mcp/codex?key=`);
      expect(w.stderr_tail).toContain('could not use');
      expect(w.stdout_tail).not.toMatch(/ark_[A-Za-z0-9_-]{43}/);
      expect(w.stderr_tail).not.toMatch(/ark_[A-Za-z0-9_-]{43}/);
    });

    it('a runner over its timeout is killed and failed', async () => {
      const a = await rig.runnerAgent('Slow', { timeout_ms: 300 });
      const room = await rig.s.room('Slow room');
      await rig.s.join(room, a.plate);
      await rig.mention(room, a.handle, 'sleep');
      const w = await waitFor(async () => (await rig.wakesOf(a.plate)).find((x) => x.status === 'failed'), 'the timed-out wake');
      expect(w.reason).toBe('the runner timed out after 300 ms');
      const start = readRunnerLog(a.log).find((l) => l.event === 'start')!;
      expect(() => process.kill(start.pid, 0)).toThrow();
    });

    it('a runner that cannot start is failed with a reason', async () => {
      const a = await rig.s.agent('Missing');
      expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, { command: join(rig.dir, 'no-such-command') })).status).toBe(200);
      const room = await rig.s.room('Missing room');
      await rig.s.join(room, a.plate);
      await rig.mention(room, a.handle, 'hello');
      const w = await waitFor(async () => (await rig.wakesOf(a.plate)).find((x) => x.status === 'failed'), 'the failed wake');
      // The reason says which command and how to fix it; the one-line cause says just that (wakes/cause.ts).
      expect(w.reason).toBe(`the runner command could not be started (ENOENT): ${join(rig.dir, 'no-such-command')} does not exist on the server; install it there or correct the runner's command`);
      expect((w as { cause?: string }).cause).toBe(`${join(rig.dir, 'no-such-command')} does not exist on the server; install it there or correct the runner's command`);
    });

    it('the runner works in the room workspace folder when one is set', async () => {
      const a = await rig.runnerAgent('Worker');
      const room = await rig.s.room('Workspace room');
      await rig.s.join(room, a.plate);
      const folder = mkdtempSync(join(rig.dir, 'workspace-'));
      const ws = await rig.s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: folder });
      expect(ws.status).toBe(200);
      await rig.mention(room, a.handle, 'where are you');
      await waitFor(async () => (await rig.wakesOf(a.plate)).some((w) => w.status === 'handled'), 'the handled wake');
      expect(readRunnerLog(a.log).find((l) => l.event === 'start')!.cwd).toBe(folder);
    });
  });
});

describe('wakes over HTTP: stop', () => {
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
      const s = rig.s;
      const me = (await s.api('GET', '/v1/me')).body;
      const room = await s.room('Stops');
      const a = await rig.runnerAgent('Sleeper');
      const log = a.log;
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
      // The kinds of this room's items (the file's server holds other tests' rooms too).
      const kinds = async (token?: string) => ((await s.api('GET', '/v1/needs-you', undefined, token)).body.items as any[]).filter((i) => i.room.room_id === room).map((i) => i.kind);
      expect(await kinds()).not.toContain('agent_stalled');
      const core = s.running.core;
      const later = (plate: string) => agentPresence(core, plate, Date.now() + PRESENCE_STALLED_MS + 1000) === 'stalled';
      const stalledItems = needsYou(core.db, me.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled' && i.room.room_id === room);
      expect(stalledItems).toHaveLength(1);
      expect(stalledItems[0]).toMatchObject({ action: 'stop', room: { room_id: room }, wake: { wake_id: running.wake_id, status: 'running' } });
      // Not to a plain member of the room who neither owns the agent nor administers the room.
      expect(needsYou(core.db, other.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled' && i.room.room_id === room)).toHaveLength(0);

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
      await waitFor(() => !alive(started.pid), 'the runner process to end');
      // The dispatcher let go of the run once its end was written (or, here, found the wake already finished).
      await waitFor(() => dispatcherOf(core)!.toolCallsOf(running.wake_id) === undefined, "the run's end to be processed");
      expect((await wakes()).find((w) => w.wake_id === running.wake_id)).toMatchObject({ status: 'failed', reason: `stopped by ${me.name}` });

      // Stopped, it is a failed wake in Needs you (Retry = requeue), no longer a stalled one.
      expect(await kinds()).toContain('wake_failed');
      expect(needsYou(core.db, me.owner_id, { limit: 200, stalled: later }).items.filter((i) => i.kind === 'agent_stalled' && i.room.room_id === room)).toHaveLength(0);

      const again = await s.api('POST', `/v1/wakes/${running.wake_id}/stop`);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ reason: 'not_running' });
      expect(again.body.error.error_id).toBeTruthy();

      // Requeue: the failed wake's retry.
      const retried = await s.api('POST', `/v1/wakes/${running.wake_id}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.body.wake_id).toBeTruthy();
      await waitFor(() => readRunnerLog(log).filter((l) => l.event === 'saw_task').length === 2, 'the requeued run to start');
      const again2 = (await wakes()).find((w) => w.status === 'running');
      expect(again2?.wake_id).not.toBe(running.wake_id);
      expect((await s.api('POST', `/v1/wakes/${again2.wake_id}/stop`)).status).toBe(200);
    });
  });
});

describe('wakes over HTTP: liveness', () => {
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
      const s = rig.s;
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
      await waitFor(async () => (await presenceOf(s, a.plate, room)) === 'offline', 'the agent to read offline');
      expect((await roster()).presence).toBe('offline');
    });
  });

  describe('liveness: a runner that dies', () => {
    it('SIGKILL of a task run fails its wake from the runner’s exit, with the signal, and flags the task stale at once, still doing, with no re-wake', async () => {
      const s = rig.s;
      const room = await s.room('Dies');
      const a = await rig.runnerAgent('Mortal');
      const log = a.log;
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
      );
      // The reason names the signal: the wake was failed from the runner's exit, not by a later sweep. How
      // long that took is a figure (a busy machine stretches it), not a bound (docs/testing.md "On a busy machine").
      console.log(`[figure] a SIGKILLed task run: its wake failed ${Date.now() - killedAt} ms after the kill`);
      expect(failed.reason).toMatch(/the runner was ended by SIGKILL/);
      const t = await task();
      expect(t.status).toBe('doing');
      expect(t.lease.stale).toBe(true);
      expect(await presenceOf(s, a.plate, room)).toBe('asleep');
      // Nothing wakes the agent again by itself: one run, one wake, the task waits for a human.
      // A full dispatch pass (what the slow poll would run) starts nothing for it.
      dispatcherOf(s.running.core)!.tick(true);
      await new Promise((r) => setImmediate(r));
      expect(((await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[]).filter((w) => w.task_id === taskId)).toHaveLength(1);
      expect(readRunnerLog(log).filter((l) => l.event === 'start')).toHaveLength(1);
      // A human's release brings it back to todo and clears the flag.
      expect((await s.api('POST', `/v1/rooms/${room}/tasks/${taskId}/release`)).status).toBe(200);
      expect(await task()).toMatchObject({ status: 'todo', lease: { stale: false } });
    });
  });
});

describe('wakes over HTTP: durable', () => {
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

    it('after a SIGKILL the queued wakes run once and the running one is failed with a reason; the budget window survives the restart (serve --wake-budget)', async () => {
      const home = mkdtempSync(join(tmpdir(), 'agent-rooms-crash-'));
      homes.push(home);
      const log = join(home, 'runner.log');
      // A budget of three runs an hour: the three runs below fit it, across both servers.
      const budget = ['--wake-budget', '3'];
      const first = await spawnServer(home, budget);
      children.push(first);
      const call = (m: string, p: string, b?: unknown) => api(first.baseUrl, first.ownerToken, m, p, b);
      const agent = (await call('POST', '/v1/agents', { name: 'Survivor' })).body;
      expect((await call('PUT', `/v1/agents/${agent.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
      const room = (await call('POST', '/v1/rooms', { name: 'Crash room' })).body.room_id;
      expect((await call('POST', `/v1/rooms/${room}/members`, { plate: agent.plate })).status).toBe(201);
      let to = call;
      const say = async (body: string) => {
        const r = await to('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [agent.handle] });
        expect(r.status).toBe(201);
      };

      await say('sleep until the server dies');
      await waitFor(() => readRunnerLog(log).some((l) => l.event === 'start'), 'the sleeping run to start');
      await say('after one');
      await say('after two');
      const before = (await call('GET', `/v1/agents/${agent.plate}/wakes`)).body.wakes as any[];
      expect(before.map((w) => w.status)).toEqual(['queued', 'queued', 'running']);

      await first.kill();
      const second = await spawnServer(home, budget);
      children.push(second);
      const call2 = (m: string, p: string, b?: unknown) => api(second.baseUrl, second.ownerToken, m, p, b);
      to = call2;

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

      // The restarted server counts the run the first one started: a fourth mention within the hour is held.
      await say('after three');
      const held = await waitFor(
        async () => ((await call2('GET', `/v1/agents/${agent.plate}/wakes`)).body.wakes as any[]).find((w) => w.status === 'held'),
        'the fourth to be held after the restart',
      );
      expect(held.reason).toBe('budget');
      expect(readRunnerLog(log).filter((l) => l.event === 'start')).toHaveLength(3);
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
      // Read when a push is made: set for this test only, on the file's server.
      process.env.AGENT_ROOMS_CHANNEL_TIMEOUT_MS = '300';
      const s = rig.s;
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
      }
    });
  });
});

describe('wakes over HTTP: presets', () => {
  // The presets are spawned by name from PATH; these stand-ins read their command line and
  // environment the way the real Claude Code and Codex CLIs do (test/fixtures/fake-hosts).
  const FAKE_HOSTS = fileURLToPath(new URL('../fixtures/fake-hosts', import.meta.url));

  describe('wakes: runner presets connect back by themselves', () => {
    let logFile: string;
    const saved = { PATH: process.env.PATH, FAKE_HOST_LOG: process.env.FAKE_HOST_LOG };
    // The file's server finds a runner's command on PATH, and gives runners its environment, when it spawns them.
    beforeAll(() => {
      logFile = join(rig.dir, 'hosts.log');
      process.env.PATH = `${FAKE_HOSTS}:${process.env.PATH}`;
      process.env.FAKE_HOST_LOG = logFile;
    });
    afterAll(() => {
      process.env.PATH = saved.PATH;
      if (saved.FAKE_HOST_LOG === undefined) delete process.env.FAKE_HOST_LOG;
      else process.env.FAKE_HOST_LOG = saved.FAKE_HOST_LOG;
    });

    const hostLog = () => readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

    for (const [preset, host, bin] of [
      ['claude -p', 'claude-code', 'claude'],
      ['codex exec', 'codex', 'codex'],
    ] as const) {
      it(`${preset}: a mention spawns the host, which reaches the room with no credential in its argv`, async () => {
        const s = rig.s;
        const a = await s.agent(`${bin} worker`);
        const room = await s.room(`${bin} room`);
        await s.join(room, a.plate);
        expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/${host}`, { preset })).status).toBe(200);
        const human = await s.api('POST', `/v1/rooms/${room}/messages`, { body: `please review ${bin}`, mention_targets: [a.handle] });
        expect(human.status).toBe(201);
        const reply = await waitFor(async () => {
          const h = await s.api('GET', `/v1/rooms/${room}/messages`);
          return h.body.messages.find((m: any) => m.body === `${bin} got: please review ${bin}`);
        }, `the ${bin} reply`);
        expect(reply.sender.plate).toBe(a.plate);
        const wakes = await waitFor(async () => {
          const w = (await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[];
          return w.every((x) => x.status !== 'queued' && x.status !== 'running') && w;
        }, 'the run to end');
        expect(wakes).toHaveLength(1);
        expect(wakes[0]).toMatchObject({ status: 'handled', target: 'runner' });
        expect(wakes[0].no_tool_call).toBeFalsy();
        const entry = hostLog().find((e) => e.host === bin && !e.error);
        expect(entry.stdin).toBe(`please review ${bin}`);
        expect(JSON.stringify(entry.argv)).not.toMatch(/ark_/);
        // The presets connect with the core tool profile (the URL carries ?tools=core, the credential apart from it).
        if (bin === 'codex') expect(JSON.stringify(entry.argv)).toContain(`/mcp/codex?tools=core`);
        // The envelope reaches the model as the system-prompt addition, naming the room.
        expect(entry.instructions_name_room).toBe(true);
      });
    }
  });
});
