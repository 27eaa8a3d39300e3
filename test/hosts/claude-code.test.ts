import { describe, it, expect } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '../helpers/core.js';
import { anthropicStandIn, REPLY_PREFIX } from './standins.js';
import { BIN_DIR, claudeHostEnv, freshHome, hostInstalled, mentionAndWait, hostRigForFile, run } from './helpers.js';

const installed = hostInstalled('claude');

/**
 * Claude Code 2.1 (pinned in test/hosts/package.json), against a loopback Anthropic Messages API:
 * the channel rule with a real `claude` session. A mention through the shipped `claude -p` preset
 * (tools offered, envelope as a system-prompt addition, sessions closed) is checked by the README
 * walk (walk.test.ts), on its one Claude Code wake.
 */
describe.skipIf(!installed)('host: Claude Code (real CLI)', () => {
  // A push not taken goes to the runner after this long (15 s by default). No session here takes one
  // (the live session's model holds its answer), so the window is only a wait: kept short.
  const rig = hostRigForFile('claude', anthropicStandIn, { env: { AGENT_ROOMS_CHANNEL_ACK_MS: '1000' } });

  /** What the host needs to reach the stand-in model: the runner's env, as an owner would set it. */
  const hostEnv = (url = rig.model.url) => claudeHostEnv(rig.home.dir, url);

  async function worker(name: string) {
    const a = await rig.s.agent(name);
    const room = await rig.s.room(`${name} room`);
    await rig.s.join(room, a.plate);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', env: hostEnv(), timeout_ms: 120_000 })).status).toBe(200);
    return { ...a, room };
  }

  /**
   * A real `claude` session connected the way users do it (`claude mcp add`), kept open by a
   * model that holds its answer. Returns once the session is live in the room.
   */
  async function liveSession(a: { plate: string; credential: string; room: string }, query: string) {
    let release!: () => void;
    const held = await anthropicStandIn({ hold: new Promise<void>((r) => (release = r)) });
    const sessionHome = freshHome('claude-session');
    const env = { ...process.env, ...hostEnv(held.url), HOME: sessionHome.dir };
    const add = await run('claude', ['mcp', 'add', '--scope', 'user', '--transport', 'http', 'agent-rooms-live', `${rig.s.baseUrl}/mcp/claude-code${query}`, '--header', `Authorization: Bearer ${a.credential}`], env);
    expect(add.code, add.stderr).toBe(0);
    const proc: ChildProcess = spawn(join(BIN_DIR, 'claude'), ['-p', 'wait here'], { env, cwd: sessionHome.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    await waitFor(
      async () => {
        const m = await rig.s.api('GET', `/v1/rooms/${a.room}/members`);
        // Live, with its GET stream open: the shape that made plain sessions channel targets before.
        return (m.body.instances as any[]).some((i) => i.plate === a.plate && i.host === 'claude-code' && i.streaming);
      },
      'the claude session to connect',
      60_000,
    );
    return {
      async stop() {
        release();
        const exited = new Promise((r) => proc.once('close', r));
        proc.kill('SIGTERM');
        await exited;
        await held.close();
        sessionHome.cleanup();
      },
    };
  }

  it('a plain claude session (no channel opt-in) is never the channel target: the wake goes to the runner', async () => {
    const a = await worker('Plain session');
    const live = await liveSession(a, '');
    try {
      const { wake } = await mentionAndWait(rig.s, { plate: a.plate, handle: a.handle, room: a.room, body: 'who takes this?' });
      expect(wake).toMatchObject({ status: 'handled', target: 'runner' });
      expect(wake.tool_calls).toBeGreaterThanOrEqual(1);
    } finally {
      await live.stop();
    }
  }, 180_000);

  it('an opted-in claude session that drops the push: the wake falls back to the runner within seconds and runs once', async () => {
    const a = await worker('Opted in');
    const live = await liveSession(a, '?channels=1');
    try {
      const streaming = await rig.s.api('GET', `/v1/rooms/${a.room}/members`);
      const starts: Array<{ wake_id: string; target: string }> = [];
      const off = rig.s.running.core.bus.on((e) => {
        if (e.type === 'wake.started') starts.push(e.data as { wake_id: string; target: string });
      });
      const { wake } = await mentionAndWait(rig.s, { plate: a.plate, handle: a.handle, room: a.room, body: 'pushed, then dropped' });
      expect(wake).toMatchObject({ status: 'handled', target: 'runner' });
      // The fallback says why, even though the runner then handled it.
      expect(wake.reason).toMatch(/did not take the push within \d+ ms.*the runner handled it/);
      expect(wake.tool_calls).toBeGreaterThanOrEqual(1);
      const wakes = (await rig.s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[];
      expect(wakes).toHaveLength(1);
      const msgs = (await rig.s.api('GET', `/v1/rooms/${a.room}/messages`)).body.messages as any[];
      expect(msgs.filter((m) => m.body === `${REPLY_PREFIX}pushed, then dropped`)).toHaveLength(1);
      // Claude Code holds a GET stream, so the opted-in session was the channel target and got the push first.
      expect((streaming.body.instances as any[]).find((i) => i.plate === a.plate)).toMatchObject({ host: 'claude-code', streaming: true });
      off();
      // Pushed to the opted-in session first, then (not taken) started once on the runner.
      expect(starts.filter((x) => x.wake_id === wake.wake_id).map((x) => x.target)).toEqual(['channel', 'runner']);
    } finally {
      await live.stop();
    }
  }, 180_000);
});
