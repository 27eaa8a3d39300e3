import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { openTestApp, type AppOptions, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/core.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';

// The rules of the loop guard, the budget and their releases, usage and coalescing: the core in
// process, its runs the fixture agent's (helpers/app-runner.ts). A restart with `serve
// --wake-budget` is in wakes-process.test.ts.
const servers: TestApp[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function server(opts: AppOptions = {}) {
  const s = await openTestApp({ database: 'home', background: true, fixtureRunners: true, ...opts });
  servers.push(s);
  return s;
}

/** An agent of the primary owner with the fixture runner on codex, in `room`. */
async function runnerAgent(s: TestApp, room: string, name: string, extra: Record<string, unknown> = {}) {
  const a = await s.agent(name);
  const log = join(s.home, `${name}.log`);
  const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log, extra));
  expect(put.status).toBe(200);
  await s.join(room, a.plate);
  return { ...a, log };
}

async function wakesOf(s: TestApp, plate: string): Promise<any[]> {
  const r = await s.api('GET', `/v1/agents/${plate}/wakes?limit=500`);
  expect(r.status).toBe(200);
  return r.body.wakes;
}

const say = async (s: TestApp, room: string, body: string, handle: string) => {
  const r = await s.api('POST', `/v1/rooms/${room}/messages`, { body, mention_targets: [handle] });
  expect(r.status).toBe(201);
  return r.body;
};

const starts = (log: string) => readRunnerLog(log).filter((l) => l.event === 'start');
const ended = (ws: any[]) => ws.every((w) => w.status !== 'queued' && w.status !== 'running');

describe('wakes you can leave running: loop guard', () => {
  it('two agents mentioning each other run at most 7 times, then the next hop is held; a release runs one more and holds the next', async () => {
    const s = await server();
    const room = await s.room('Ping pong');
    const a = await runnerAgent(s, room, 'Ping');
    const b = await runnerAgent(s, room, 'Pong');
    await say(s, room, `ping:${b.handle}`, a.handle);

    const all = async () => [...(await wakesOf(s, a.plate)), ...(await wakesOf(s, b.plate))];
    const held = await waitFor(async () => (await all()).find((w) => w.status === 'held'), 'the loop guard to hold a wake');
    await waitFor(async () => ended(await all()), 'every run to end');
    const ws = await all();
    expect(held).toMatchObject({ reason: 'loop_guard', chain_depth: 7 });
    expect(starts(a.log).length + starts(b.log).length).toBe(7);
    expect(ws.filter((w) => w.status === 'handled').map((w) => w.chain_depth).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ws.filter((w) => w.status === 'held')).toHaveLength(1);

    const rel = await s.api('POST', `/v1/wakes/${held.wake_id}/release`);
    expect(rel.status).toBe(200);
    expect(rel.body).toMatchObject({ wake_id: held.wake_id, chain_depth: 7 });
    // The released wake runs once; its own next hop (depth 8) is held again.
    await waitFor(async () => (await all()).some((w) => w.status === 'held' && w.chain_depth === 8), 'the next hop to be held');
    await waitFor(async () => ended(await all()), 'the released run to end');
    expect(starts(a.log).length + starts(b.log).length).toBe(8);
    const after = await all();
    expect(after.find((w) => w.wake_id === held.wake_id)).toMatchObject({ status: 'handled', chain_depth: 7 });
    expect(after.filter((w) => w.status === 'held').map((w) => [w.chain_depth, w.reason])).toEqual([[8, 'loop_guard']]);
  });

  it('a lower --max-chain holds sooner, and a human-written mention always starts at depth 0', async () => {
    const s = await server({ maxChain: 1 });
    const room = await s.room('Short chain');
    const a = await runnerAgent(s, room, 'Ping');
    const b = await runnerAgent(s, room, 'Pong');
    await say(s, room, `ping:${b.handle}`, a.handle);
    const all = async () => [...(await wakesOf(s, a.plate)), ...(await wakesOf(s, b.plate))];
    await waitFor(async () => (await all()).some((w) => w.status === 'held'), 'the hold');
    await waitFor(async () => ended(await all()), 'every run to end');
    expect(starts(a.log).length + starts(b.log).length).toBe(2);
    const w = await say(s, room, 'hello again', a.handle);
    await waitFor(async () => (await wakesOf(s, a.plate)).find((x) => x.message_id === w.message_id && x.status === 'handled'), 'the human mention to run');
    expect((await wakesOf(s, a.plate)).find((x) => x.message_id === w.message_id).chain_depth).toBe(0);
  });
});

describe('wakes you can leave running: budget, release, drop, retry', () => {
  it('--wake-budget 3 with 5 mentions: 3 run, 2 held; drop ends one unrun, release runs the other; bad input gets clear errors', async () => {
    const s = await server({ wakeBudget: 3 });
    const room = await s.room('Budget');
    const a = await runnerAgent(s, room, 'Spender');
    for (let i = 1; i <= 5; i++) await say(s, room, `hello ${i}`, a.handle);
    await waitFor(async () => (await wakesOf(s, a.plate)).filter((w) => w.status === 'held').length === 2, 'two held wakes');
    await waitFor(async () => ended(await wakesOf(s, a.plate)), 'the runs to end');
    const ws = await wakesOf(s, a.plate);
    expect(ws.filter((w) => w.status === 'handled')).toHaveLength(3);
    const held = ws.filter((w) => w.status === 'held');
    expect(held.map((w) => w.reason)).toEqual(['budget', 'budget']);
    expect(starts(a.log)).toHaveLength(3);
    const [second, first] = held; // newest first

    // Who may act: another owner outside the room does not learn the wake exists; a plain member may not.
    const bob = await s.owner('Bob');
    expect((await s.api('POST', `/v1/wakes/${first.wake_id}/release`, undefined, bob.token)).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    const forbidden = await s.api('POST', `/v1/wakes/${first.wake_id}/drop`, undefined, bob.token);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toMatchObject({ code: 'FORBIDDEN' });
    expect(forbidden.body.error.error_id).toBeTruthy();
    expect((await s.api('POST', '/v1/wakes/wake_nope/release')).status).toBe(404);

    // Drop: ends unrun; a second drop or a release of it is a conflict, with one outcome.
    const drop = await s.api('POST', `/v1/wakes/${first.wake_id}/drop`);
    expect(drop.status).toBe(200);
    expect(drop.body).toMatchObject({ status: 'failed', reason: 'dropped' });
    const again = await s.api('POST', `/v1/wakes/${first.wake_id}/drop`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'CONFLICT', reason: 'not_held' });
    expect((await s.api('POST', `/v1/wakes/${first.wake_id}/release`)).status).toBe(409);

    // Release and drop at once: exactly one wins.
    const race = await Promise.all([s.api('POST', `/v1/wakes/${second.wake_id}/release`), s.api('POST', `/v1/wakes/${second.wake_id}/drop`), s.api('POST', `/v1/wakes/${second.wake_id}/release`)]);
    expect(race.map((r) => r.status).filter((c) => c === 200)).toHaveLength(1);
    expect(race.map((r) => r.status).filter((c) => c === 409)).toHaveLength(2);
    const won = race.find((r) => r.status === 200)!.body;
    if (won.status === 'queued' || won.status === 'running') {
      await waitFor(async () => (await wakesOf(s, a.plate)).find((w) => w.wake_id === second.wake_id && w.status === 'handled'), 'the released wake to run');
      expect(starts(a.log)).toHaveLength(4);
    } else {
      expect(won).toMatchObject({ status: 'failed', reason: 'dropped' });
    }
    // A wake that is not held (here one that ran) cannot be released.
    const ran = ws.find((w) => w.status === 'handled');
    expect((await s.api('POST', `/v1/wakes/${ran.wake_id}/release`)).body.error).toMatchObject({ code: 'CONFLICT', reason: 'not_held' });

    // Retry: only a failed wake, once; the copy keeps trigger, content and depth and names the old one.
    const notFailed = await s.api('POST', `/v1/wakes/${ran.wake_id}/retry`);
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error.reason).toBe('not_failed');
    expect((await s.api('POST', `/v1/wakes/${first.wake_id}/retry`, undefined, bob.token)).status).toBe(403);
    const retry = await s.api('POST', `/v1/wakes/${first.wake_id}/retry`);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ retry_of: first.wake_id, trigger: 'mention', message_id: first.message_id, chain_depth: first.chain_depth });
    expect(retry.body.wake_id).not.toBe(first.wake_id);
    expect((await s.api('POST', `/v1/wakes/${first.wake_id}/retry`)).body.error).toMatchObject({ code: 'CONFLICT', reason: 'already_retried' });
    // The budget is spent: the retry is held too.
    await waitFor(async () => (await wakesOf(s, a.plate)).find((w) => w.wake_id === retry.body.wake_id && w.status === 'held'), 'the retry to be held by the budget');
  });

  it('the wake settings are the primary owner’s, stored in the home, and checked', async () => {
    const s = await server();
    expect((await s.api('GET', '/v1/settings/wakes')).body).toEqual({ max_chain: 6, wake_budget: 30 });
    const put = await s.api('PUT', '/v1/settings/wakes', { wake_budget: 0 });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ max_chain: 6, wake_budget: 0 });
    expect(JSON.parse(readFileSync(join(s.home, 'settings.json'), 'utf8')).wakes).toEqual({ max_chain: 6, wake_budget: 0 });
    for (const bad of [{}, { max_chain: -1 }, { wake_budget: 1.5 }, { wake_budget: '3' }, { other: 1 }]) {
      const r = await s.api('PUT', '/v1/settings/wakes', bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.error_id).toBeTruthy();
    }
    const bob = await s.owner('Bob');
    expect((await s.api('GET', '/v1/settings/wakes', undefined, bob.token)).status).toBe(403);
    expect((await s.api('PUT', '/v1/settings/wakes', { max_chain: 1 }, bob.token)).status).toBe(403);
    expect((await s.api('GET', '/v1/settings/wakes')).body).toEqual({ max_chain: 6, wake_budget: 0 });
  });
});

describe('wakes you can leave running: usage and coalescing', () => {
  it('usage a runner prints on its last line is recorded per wake and summed by /v1/usage, for what the caller may see', async () => {
    const s = await server();
    const room = await s.room('Costly');
    const report = { input_tokens: 1200, output_tokens: 340, cache_read_tokens: 56, cost_usd: 0.0125, model: 'fixture-model-1' };
    const a = await runnerAgent(s, room, 'Counter', { env: { RUNNER_LOG: join(s.home, 'Counter-2.log'), RUNNER_USAGE: JSON.stringify(report) } });
    await say(s, room, 'first', a.handle);
    await say(s, room, 'second', a.handle);
    await waitFor(async () => (await wakesOf(s, a.plate)).filter((w) => w.status === 'handled').length === 2, 'two runs');
    const ws = await wakesOf(s, a.plate);
    for (const w of ws) expect(w.usage).toEqual(report);
    // The kept output is readable: the usage line is part of it, nothing else is lost.
    expect(ws[0].stdout_tail).toContain('some output first');

    const u = await s.api('GET', '/v1/usage');
    expect(u.status).toBe(200);
    const sums = { wakes: 2, input_tokens: 2400, output_tokens: 680, cache_read_tokens: 112, cost_usd: 0.025 };
    expect(u.body.totals).toEqual(sums);
    // Each agent's row names it by handle beside its plate.
    expect(u.body.by_agent).toEqual([{ plate: a.plate, handle: a.handle, ...sums }]);
    expect(u.body.by_room).toEqual([{ room, ...sums }]);
    expect((await s.api('GET', `/v1/usage?room=${room}&plate=${a.plate}&since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).body.totals).toEqual(sums);
    expect((await s.api('GET', `/v1/usage?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.totals.wakes).toBe(0);
    expect((await s.api('GET', '/v1/usage?since=yesterday')).status).toBe(400);
    // Another owner sees none of it.
    const bob = await s.owner('Bob');
    expect((await s.api('GET', '/v1/usage', undefined, bob.token)).body).toEqual({
      totals: { wakes: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cost_usd: 0 },
      by_agent: [],
      by_room: [],
    });
  });

  it('with coalesce on, mentions queued behind a slow run start as one run: bodies joined by ---, the others merged', async () => {
    const s = await server();
    const room = await s.room('Busy');
    const a = await runnerAgent(s, room, 'Busy', { coalesce: true });
    expect((await s.api('GET', `/v1/agents/${a.plate}/runners/codex`)).body.coalesce).toBe(true);
    // The first run holds until the four are queued behind it (the test opens its gate).
    const gate = join(s.home, 'gate-busy');
    const m0 = await say(s, room, `hold:${gate}`, a.handle);
    await waitFor(() => starts(a.log).length === 1, 'the slow run to start');
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push((await say(s, room, `queued ${i}`, a.handle)).message_id);
    writeFileSync(gate, '');
    await waitFor(async () => ended(await wakesOf(s, a.plate)), 'every wake to end');
    const runs = starts(a.log);
    expect(runs.length).toBeLessThanOrEqual(2);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.stdin).toBe('queued 1\n---\nqueued 2\n---\nqueued 3\n---\nqueued 4');
    expect(runs[1]!.wake.message_ids).toEqual(ids);
    const ws = await wakesOf(s, a.plate);
    const lead = ws.find((w) => w.message_id === ids[0]);
    expect(lead).toMatchObject({ status: 'handled', message_ids: ids });
    expect(ws.filter((w) => w.status === 'merged').map((w) => [w.message_id, w.merged_into])).toEqual(ids.slice(1).reverse().map((id) => [id, lead.wake_id]));
    expect(ws.find((w) => w.message_id === m0.message_id).status).toBe('handled');
  });

  it('without coalesce every mention is its own run with its raw body', async () => {
    const s = await server();
    const room = await s.room('Plain');
    const a = await runnerAgent(s, room, 'Plain');
    const gate = join(s.home, 'gate-plain');
    await say(s, room, `hold:${gate}`, a.handle);
    await waitFor(() => starts(a.log).length === 1, 'the slow run to start');
    await say(s, room, 'queued 1', a.handle);
    await say(s, room, 'queued 2', a.handle);
    writeFileSync(gate, '');
    await waitFor(async () => ended(await wakesOf(s, a.plate)) && starts(a.log).length === 3, 'three runs');
    expect(starts(a.log).map((l) => l.stdin)).toEqual([`hold:${gate}`, 'queued 1', 'queued 2']);
  });
});

describe('retry of a failed task', () => {
  it('copies it with retry_of to the same or another agent, re-points its dependents, wakes the assignee; rights as reassignment; once', async () => {
    const s = await server();
    const room = await s.room('Retry room');
    const a = await s.agent('First try');
    const b = await s.agent('Second try');
    await s.join(room, a.plate);
    await s.join(room, b.plate);
    const task = async (body: Record<string, unknown>) => {
      const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { definition_of_done: 'it works', assignee: a.handle, ...body });
      expect(r.status).toBe(201);
      return r.body;
    };
    const failing = await task({ title: 'flaky build', detail: 'run it' });
    const after = await task({ title: 'ship it', depends_on: [failing.task_id] });
    const ca = await s.connect(a.credential);
    await ok(ca, 'claim_task', { task_id: failing.task_id });
    await ok(ca, 'complete_task', { task_id: failing.task_id, status: 'failed', reason: 'flaky' });

    // Bad input first: not failed, unknown task, a bad body, a member without the right, a stranger.
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${after.task_id}/retry`, {})).body.error).toMatchObject({ code: 'CONFLICT', reason: 'not_failed' });
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/task_nope/retry`, {})).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, { assignee: 42 })).status).toBe(400);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, { assignee: '@nobody(here)' })).status).toBe(400);
    const bob = await s.owner('Bob');
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, {}, bob.token)).status).toBe(404);
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, {}, bob.token)).status).toBe(403);

    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, { assignee: b.handle });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ retry_of: failing.task_id, title: 'flaky build', detail: 'run it', assignee: b.plate, status: 'todo' });
    const copy = r.body.task_id;
    expect(copy).not.toBe(failing.task_id);
    const get = async (id: string) => (await s.api('GET', `/v1/rooms/${room}/tasks/${id}`)).body;
    expect(await get(failing.task_id)).toMatchObject({ status: 'failed', reason: 'flaky' });
    expect((await get(after.task_id)).depends_on).toEqual([copy]);
    expect(((await s.api('GET', `/v1/agents/${b.plate}/wakes`)).body.wakes as any[]).some((w) => w.task_id === copy && w.trigger === 'assignment')).toBe(true);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${failing.task_id}/retry`, {})).body.error).toMatchObject({ code: 'CONFLICT', reason: 'already_retried' });
  });
});
