import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { z } from 'zod';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, ok, type TestServer } from '../helpers/server.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureRunner } from './wakes-helpers.js';
import { waitFor } from '../helpers/core.js';

const ChannelNotification = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }),
});
type Pushed = z.infer<typeof ChannelNotification>['params'];

describe('wakes: Claude Code channel push', () => {
  let s: TestServer;
  let dir: string;
  const ackBefore = process.env.AGENT_ROOMS_CHANNEL_ACK_MS;
  beforeAll(async () => {
    // A push not taken goes to the runner or the inbox after this long (default 15 s).
    process.env.AGENT_ROOMS_CHANNEL_ACK_MS = '1500';
    dir = mkdtempSync(join(tmpdir(), 'ar-channel-'));
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
  });
  afterAll(async () => {
    await s.stop();
    if (ackBefore === undefined) delete process.env.AGENT_ROOMS_CHANNEL_ACK_MS;
    else process.env.AGENT_ROOMS_CHANNEL_ACK_MS = ackBefore;
    rmSync(dir, { recursive: true, force: true });
  });

  const wakesOf = async (plate: string) => (await s.api('GET', `/v1/agents/${plate}/wakes`)).body.wakes as any[];
  const mention = async (room: string, handle: string, body: string) => {
    const r = await s.api('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [handle] });
    expect(r.status).toBe(201);
    return r.body;
  };

  /** A claude-code session that opted in to channels and collects the pushes, once its GET stream is open. */
  async function channelClient(credential: string, room: string, query = '?channels=1'): Promise<{ client: Client; pushed: Pushed[] }> {
    const pushed: Pushed[] = [];
    // The handler is in place before the session opens: a wake that waits for it is pushed as soon as
    // its GET stream is up, which can be before connect() returns (under load it was, and the push was lost).
    const client = await s.connect(credential, 'claude-code', {
      query,
      beforeConnect: (c) =>
        c.setNotificationHandler(ChannelNotification, (n) => {
          pushed.push(n.params);
        }),
    });
    await waitFor(async () => {
      const m = await s.api('GET', `/v1/rooms/${room}/members`);
      return (m.body.instances as any[]).some((i) => i.host === 'claude-code' && i.streaming);
    }, 'the GET stream');
    return { client, pushed };
  }

  it('declares claude/channel on /mcp/claude-code only', async () => {
    const a = await s.agent('Declarer');
    const cc = await s.connect(a.credential, 'claude-code');
    expect(cc.getServerCapabilities()?.experimental).toEqual({ 'claude/channel': {} });
    const generic = await s.connect(a.credential);
    expect(generic.getServerCapabilities()?.experimental).toBeUndefined();
  });

  it('pushes a mention into the live session; handled when it acts in the room; the next waits its turn', async () => {
    const a = await s.agent('Pushed');
    const room = await s.room('Channel room');
    await s.join(room, a.plate);
    const { client, pushed } = await channelClient(a.credential, room);

    const m1 = await mention(room, a.handle, 'first: review the diff');
    await waitFor(() => pushed.length === 1, 'the first push');
    expect(pushed[0]!.content).toBe('first: review the diff');
    const meta = pushed[0]!.meta;
    const [w1] = await wakesOf(a.plate);
    expect(w1).toMatchObject({ status: 'running', target: 'channel', host: 'claude-code', message_id: m1.message_id });
    expect(meta).toEqual({
      wake_id: w1.wake_id,
      plate: a.plate,
      handle: expect.stringMatching(new RegExp(`^${a.handle.replace(/[()]/g, '\\$&')}#[0-9a-f]{8}$`)),
      room,
      host: 'claude-code',
      trigger: 'mention',
      context_version: String(w1.context_version),
      message_id: m1.message_id,
    });
    const me = await ok(client, 'whoami');
    expect(meta.handle.endsWith(`#${me.session_id.replace(/-/g, '').slice(0, 8)}`)).toBe(true);

    // A second mention to the same session queues behind the first (one running per key).
    const m2 = await mention(room, a.handle, 'second: and the tests');
    const queued = await wakesOf(a.plate);
    expect(queued.map((w) => w.status)).toEqual(['queued', 'running']);

    // Acting in the room handles the running wake; the next one is pushed.
    await ok(client, 'send_message', { room, body: 'on it' });
    await waitFor(() => pushed.length === 2, 'the second push');
    expect(pushed[1]).toMatchObject({ content: 'second: and the tests', meta: { message_id: m2.message_id, trigger: 'mention' } });
    const after = await wakesOf(a.plate);
    expect(after.map((w) => w.status)).toEqual(['running', 'handled']);

    await ok(client, 'ack_mentions', { last_mention_seq: 1_000_000 });
    await waitFor(async () => (await wakesOf(a.plate)).every((w) => w.status === 'handled'), 'both handled');
  });

  it('a session without a GET stream is not a channel target: the mention waits for pull', async () => {
    const a = await s.agent('NoStream');
    const room = await s.room('No stream room');
    await s.join(room, a.plate);
    // A generic (/mcp) session can never take a channel push.
    await s.connect(a.credential);
    await mention(room, a.handle, 'anyone there?');
    const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.target === 'pull'), 'the pull wake');
    expect(w.status).toBe('queued');
  });

  it('a pull wake is pushed once a claude-code session with a stream connects', async () => {
    const a = await s.agent('Latecomer');
    const room = await s.room('Late room');
    await s.join(room, a.plate);
    await mention(room, a.handle, 'while you were away');
    await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.target === 'pull'), 'the pull wake');
    const { pushed } = await channelClient(a.credential, room);
    await waitFor(() => pushed.length === 1, 'the push');
    expect(pushed[0]!.content).toBe('while you were away');
  });

  it('a claude-code session without the channel opt-in is never a channel target: the mention waits for pull', async () => {
    const a = await s.agent('Plain');
    const room = await s.room('Plain room');
    await s.join(room, a.plate);
    // A plain `claude mcp add` session: GET stream open, nothing in initialize says it listens.
    const { pushed } = await channelClient(a.credential, room, '');
    await mention(room, a.handle, 'plain session');
    const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.target === 'pull'), 'the pull wake');
    expect(w.status).toBe('queued');
    expect(pushed).toEqual([]);
  });

  // The three cases that wait out the ack window (1.5 s) for a push nobody takes run at once: each has
  // its own agent, room and runner, and most of their time is that wait.
  describe.concurrent('a push not taken within the ack window', () => {
    /** An agent in a room of its own, with the fixture runner (logging to `file`) and an opted-in session that drops every push. */
    async function droppingAgent(name: string, roomName: string, file: string) {
      const a = await s.agent(name);
      const room = await s.room(roomName);
      await s.join(room, a.plate);
      const log = join(dir, file);
      expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
      const { pushed } = await channelClient(a.credential, room);
      return { a, room, log, pushed };
    }

    it('a push the session does not take goes to the runner within the ack window, and runs once', async () => {
      // Opted in, but drops the push (as Claude Code does without a working channel).
      const { a, room, log, pushed } = await droppingAgent('Dropper', 'Drop room', 'dropper.log');
      await mention(room, a.handle, 'dropped on the floor');
      await waitFor(() => pushed.length === 1, 'the push');
      const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.status === 'handled'), 'the runner handling it');
      expect(w).toMatchObject({ target: 'runner', host: 'codex' });
      expect(w.tool_calls).toBeGreaterThanOrEqual(1);
      const runs = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; stdin?: string });
      expect(runs.filter((r) => r.event === 'start').map((r) => r.stdin)).toEqual(['dropped on the floor']);
      expect(pushed).toHaveLength(1);
      expect(await wakesOf(a.plate)).toHaveLength(1);
    });

    it('a session that let a push go is known not to show channels: its next wakes go to the runner at once, each fallback says why', async () => {
      const { a, room, pushed } = await droppingAgent('Deaf session', 'Deaf room', 'deaf.log');
      const first = await mention(room, a.handle, 'first, pushed and dropped');
      expect(first.wakes).toEqual([expect.objectContaining({ status: 'queued', target: 'channel' })]);
      await waitFor(() => pushed.length === 1, 'the push');
      const w1 = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.status === 'handled'), 'the runner handling the first');
      expect(w1.target).toBe('runner');
      expect(w1.reason).toMatch(/did not take the push within \d+ ms.*the runner handled it/);
      // The session is still open, streaming and opted in, but it is known not to show channels.
      const second = await mention(room, a.handle, 'second, straight to the runner');
      expect(second.wakes).toEqual([expect.objectContaining({ status: 'queued', target: 'runner' })]);
      const w2 = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.message_id === second.message_id && x.status === 'handled'), 'the runner handling the second');
      expect(w2.target).toBe('runner');
      expect(pushed).toHaveLength(1);
      // Run credentials of ended wakes are deleted, not left revoked (the wake log keeps the audit).
      const creds = (await s.api('GET', `/v1/agents/${a.plate}/credentials`)).body.credentials as any[];
      expect(creds.filter((c) => c.purpose === 'runner')).toEqual([]);
      expect((await wakesOf(a.plate)).length).toBe(2);
    });

    it('an assigned task pushed to a session that drops it: the receipt comes back and the runner does the task', async () => {
      const { a, room, log, pushed } = await droppingAgent('Task dropper', 'Task drop room', 'task-dropper.log');
      const t = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Do it', definition_of_done: 'done', assignee: a.handle });
      expect(t.status).toBe(201);
      await waitFor(() => pushed.length === 1, 'the push');
      // The push gave the session the running receipt: doing, leased by that session.
      expect((await s.api('GET', `/v1/rooms/${room}/tasks/${t.body.task_id}`)).body.status).toBe('doing');
      const done = await waitFor(async () => {
        const x = await s.api('GET', `/v1/rooms/${room}/tasks/${t.body.task_id}`);
        return x.body.status === 'done' && x.body;
      }, 'the runner to finish the task');
      expect(done.summary).toBe('done by runner');
      const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.status !== 'running'), 'the run to end');
      expect(w).toMatchObject({ status: 'handled', target: 'runner', trigger: 'assignment' });
      expect(await wakesOf(a.plate)).toHaveLength(1);
      // The runner got the receipt itself (doing under the runner instance) before acting.
      const saw = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; lease?: { instance_id: string } }).find((l) => l.event === 'saw_task');
      expect(saw?.lease?.instance_id).toBe(`runner:${a.plate}:codex`);
    });

  });

  it('a push not taken before the session closes goes back to the inbox, not pushed again', async () => {
    const a = await s.agent('Leaver');
    const room = await s.room('Leave room');
    await s.join(room, a.plate);
    const { client, pushed } = await channelClient(a.credential, room);
    await mention(room, a.handle, 'are you there');
    await waitFor(() => pushed.length === 1, 'the push');
    const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport!.terminateSession!();
    const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.target === 'pull'), 'the pull wake');
    expect(w.status).toBe('queued');
    expect(w.reason).toMatch(/waiting in the inbox/);
    expect(pushed).toHaveLength(1);
  });

  it('a pushed wake whose session took it and closes before acting is failed with a reason', async () => {
    const a = await s.agent('Taker');
    const room = await s.room('Take room');
    await s.join(room, a.plate);
    const { client, pushed } = await channelClient(a.credential, room);
    await mention(room, a.handle, 'are you there');
    await waitFor(() => pushed.length === 1, 'the push');
    await ok(client, 'whoami');
    const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
    await transport!.terminateSession!();
    const w = await waitFor(async () => (await wakesOf(a.plate)).find((x) => x.status === 'failed'), 'the failed wake');
    expect(w.reason).toBe('the session closed before acting in the room');
  });
});
