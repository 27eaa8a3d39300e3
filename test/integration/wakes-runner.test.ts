import { describe, it, expect } from 'vitest';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { openTestApp } from '../helpers/app.js';
import { fixtureRunner, readRunnerLog, runnerRig } from './wakes-helpers.js';
import { waitFor } from '../helpers/core.js';

// What the dispatcher does with runs (tasks and their handoff, order, parallel rooms, outcomes,
// runner settings, pull): the core in process, each run the fixture agent's in process
// (helpers/app-runner.ts). The process runner itself (spawn, env, cwd, output tails, timeout
// kill) is tested over HTTP in wakes-process.test.ts.
describe('wakes: runners', () => {
  const rig = runnerRig(() => openTestApp({ database: 'home', rateLimit: { perSecond: 0, burst: 1 }, background: true, fixtureRunners: true }));
  it('an assigned task goes doing under the runner, then done with handoff notes; the successor gets them verbatim', async () => {
    const builder = await rig.runnerAgent('Builder');
    const reviewer = await rig.runnerAgent('Checker');
    const room = await rig.s.room('Task room');
    await rig.s.join(room, builder.plate);
    await rig.s.join(room, reviewer.plate);
    // The successor task first (it waits on its prerequisite, so its creation wakes no one).
    const first = await rig.s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Build it', definition_of_done: 'it builds', assignee: builder.handle });
    expect(first.status).toBe(201);
    const second = await rig.s.api('POST', `/v1/rooms/${room}/tasks`, {
      title: 'Review it',
      definition_of_done: 'reviewed',
      assignee: reviewer.handle,
      depends_on: [first.body.task_id],
    });
    expect(second.status).toBe(201);

    const done = await waitFor(async () => {
      const t = await rig.s.api('GET', `/v1/rooms/${room}/tasks/${second.body.task_id}`);
      return t.body.status === 'done' && t.body;
    }, 'the successor task to be done');
    expect(done.summary).toBe('done by runner');

    const bLog = readRunnerLog(builder.log);
    const saw = bLog.find((l) => l.event === 'saw_task')!;
    expect(saw.status).toBe('doing'); // the running receipt: todo -> doing before the agent did anything
    expect(saw.lease?.instance_id).toBe(`runner:${builder.plate}:codex`);
    const notes = bLog.find((l) => l.event === 'completed')!.notes!;
    const firstTask = await rig.s.api('GET', `/v1/rooms/${room}/tasks/${first.body.task_id}`);
    expect(firstTask.body).toMatchObject({ status: 'done', handoff_notes: notes });
    expect(JSON.parse(bLog.find((l) => l.event === 'start')!.stdin!).task.task_id).toBe(first.body.task_id);

    const rStart = readRunnerLog(reviewer.log).find((l) => l.event === 'start')!;
    expect(rStart.wake).toMatchObject({ trigger: 'successor', task_id: second.body.task_id, plate: reviewer.plate });
    const payload = JSON.parse(rStart.stdin!);
    expect(payload.handoff_notes).toBe(notes);
    expect(payload.task.task_id).toBe(second.body.task_id);
    expect(Object.keys(payload).sort()).toEqual(['handoff_notes', 'task']);

    const bw = await rig.wakesOf(builder.plate);
    expect(bw.map((w) => [w.trigger, w.status])).toEqual([['assignment', 'handled']]);
    const rw = await waitFor(async () => {
      const x = await rig.wakesOf(reviewer.plate);
      return x.every((w) => w.status !== 'running') && x;
    }, 'the successor run to end');
    expect(rw.map((w) => [w.trigger, w.status])).toEqual([['successor', 'handled']]);
  });

  it('three mentions to one runner run one after another, in order', async () => {
    const a = await rig.runnerAgent('Serial');
    const room = await rig.s.room('FIFO room');
    await rig.s.join(room, a.plate);
    for (const n of [1, 2, 3]) await rig.mention(room, a.handle, `job ${n}`);
    await waitFor(async () => (await rig.wakesOf(a.plate)).filter((w) => w.status === 'handled').length === 3, 'three handled wakes');
    const events = readRunnerLog(a.log)
      .filter((l) => l.event === 'start' || l.event === 'end')
      .map((l) => `${l.event} ${l.event === 'start' ? l.stdin : readRunnerLog(a.log).find((x) => x.event === 'start' && x.pid === l.pid)!.stdin}`);
    expect(events).toEqual(['start job 1', 'end job 1', 'start job 2', 'end job 2', 'start job 3', 'end job 3']);
  });

  it('wakes of two rooms run in parallel', async () => {
    const a = await rig.runnerAgent('Parallel');
    const roomA = await rig.s.room('Parallel A');
    const roomB = await rig.s.room('Parallel B');
    await rig.s.join(roomA, a.plate);
    await rig.s.join(roomB, a.plate);
    // Each run waits until the other room's run has started too: serial runs would fail.
    const barrier = join(rig.dir, 'barrier');
    await rig.mention(roomA, a.handle, `barrier:${barrier}`);
    await rig.mention(roomB, a.handle, `barrier:${barrier}`);
    const ws = await waitFor(async () => {
      const w = await rig.wakesOf(a.plate);
      return w.length === 2 && w.every((x) => x.status !== 'queued' && x.status !== 'running') && w;
    }, 'both wakes to end');
    expect(ws.map((w) => w.status)).toEqual(['handled', 'handled']);
  });

  it('a run that exits 0 without a tool call back is handled but flagged', async () => {
    const a = await rig.runnerAgent('Silent');
    const room = await rig.s.room('Silent room');
    await rig.s.join(room, a.plate);
    await rig.mention(room, a.handle, 'silent please');
    const w = await waitFor(async () => (await rig.wakesOf(a.plate)).find((x) => x.status === 'handled'), 'the handled wake');
    expect(w).toMatchObject({ no_tool_call: true, tool_calls: 0, exit_code: 0 });
  });

  it('runners are configured per agent and host by their owner: presets, GET, DELETE, validation', async () => {
    const a = await rig.s.agent('Configured');
    const put = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', timeout_ms: 60_000 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ host: 'claude-code', preset: 'claude -p', command: 'claude', timeout_ms: 60_000, cwd: null });
    // The preset wires the room's MCP server in itself, through the environment (no credential in argv).
    // It runs in the JSON output mode that reports usage (stream-json needs --verbose with -p).
    expect(put.body.args.slice(0, 5)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--mcp-config']);
    // The server name is per agent, filled in at spawn time.
    expect(JSON.parse(put.body.args[5]).mcpServers['{server}']).toEqual({ type: 'http', url: '${AGENT_ROOMS_MCP_URL}' });
    // Presets take env too (the host's API key and base URL); values never come back.
    const withEnv = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, { preset: 'gemini', env: { GEMINI_API_KEY: 'gemini-secret' } });
    expect(withEnv.status).toBe(200);
    expect(withEnv.body).toMatchObject({ preset: 'gemini -p', args: ['--skip-trust', '--output-format', 'stream-json', '-p', ''], env: { GEMINI_API_KEY: '***' } });
    expect(JSON.stringify(withEnv.body)).not.toContain('gemini-secret');
    expect((await rig.s.api('DELETE', `/v1/agents/${a.plate}/runners/gemini`)).status).toBeLessThan(300);
    const custom = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: '/usr/bin/env', args: ['x'], cwd: '/tmp', env: { TOKEN: 'secret-value' } });
    expect(custom.status).toBe(200);
    expect(custom.body.env).toEqual({ TOKEN: '***' });
    expect(JSON.stringify(custom.body)).not.toContain('secret-value');
    expect((await rig.s.api('GET', `/v1/agents/${a.plate}/runners/claude-code`)).body.preset).toBe('claude -p');
    expect((await rig.s.api('GET', `/v1/agents/${a.plate}/runners`)).body.runners.map((r: any) => r.host)).toEqual(['claude-code', 'codex']);

    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/vim`, { preset: 'claude -p' })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { preset: 'emacs' })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: 'x', cwd: 'relative/dir' })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: 'x', env: { AGENT_ROOMS_MCP_URL: 'y' } })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: 'x', timeout_ms: 0 })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: 'x', coalesce: 'yes' })).status).toBe(400);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { preset: 'codex exec', coalesce: 1 })).status).toBe(400);

    const other = await rig.s.owner('Bob Other');
    expect((await rig.s.api('GET', `/v1/agents/${a.plate}/runners/claude-code`, undefined, other.token)).status).toBe(404);
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { preset: 'codex exec' }, other.token)).status).toBe(404);

    expect((await rig.s.api('DELETE', `/v1/agents/${a.plate}/runners/claude-code`)).status).toBe(200);
    expect((await rig.s.api('GET', `/v1/agents/${a.plate}/runners/claude-code`)).status).toBe(404);
    expect((await rig.s.api('DELETE', `/v1/agents/${a.plate}/runners/claude-code`)).status).toBe(404);
  });

  it('with runners on no host the mention waits in the inbox (pull) and is handled when the agent acts', async () => {
    const a = await rig.s.agent('Puller');
    const room = await rig.s.room('Pull room');
    await rig.s.join(room, a.plate);
    await rig.mention(room, a.handle, 'pull me');
    const w = await waitFor(async () => (await rig.wakesOf(a.plate)).find((x) => x.target === 'pull'), 'the wake marked pull');
    expect(w.status).toBe('queued');
    const c = await rig.s.connect(a.credential);
    const inbox = await ok(c, 'check_mentions', { room });
    expect(inbox.items).toHaveLength(1);
    await ok(c, 'send_message', { room, body: 'seen', ack_mention_ids: [inbox.items[0].mention_id] });
    const after = await rig.wakesOf(a.plate);
    expect(after[0]).toMatchObject({ wake_id: w.wake_id, status: 'handled' });
  });
  it('a mention run that exits with a code is failed with that code at once', async () => {
    const room = await rig.s.room('Exits');
    const a = await rig.s.agent('Exiter');
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(join(rig.s.home, 'x.log')))).status).toBe(200);
    await rig.s.join(room, a.plate);
    expect((await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'fail now', mention_targets: [a.handle] })).status).toBe(201);
    const w = await waitFor(async () => ((await rig.s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes as any[]).find((x) => x.status === 'failed'), 'the failure');
    expect(w).toMatchObject({ exit_code: 3, reason: 'the runner exited with code 3' });
  });
});
