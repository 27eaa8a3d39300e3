import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { fixtureRunner } from './wakes-helpers.js';
import { waitFor } from '../helpers/core.js';

/** docs/wakes.md "What a mention says": every mention target gets a wake status or `inbox` with a reason. */
describe('wakes: what became of each mention', () => {
  let s: TestApp;
  let dir: string;
  beforeAll(async () => {
    s = await openTestApp({ database: 'home', rateLimit: { perSecond: 0, burst: 1 }, background: true, fixtureRunners: true });
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-outcome-'));
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the message response says per agent: queued for the runner, or waiting in the inbox and why', async () => {
    const room = await s.room('Outcome room');
    const runner = await s.agent('Has runner');
    const bare = await s.agent('No runner');
    const readOnly = await s.agent('Read only', { scopes: ['READ', 'WRITE'] });
    for (const a of [runner, bare, readOnly]) await s.join(room, a.plate);
    expect((await s.api('PUT', `/v1/agents/${runner.plate}/runners/codex`, fixtureRunner(join(dir, 'r.log')))).status).toBe(200);

    const m = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'who wakes?', mention_targets: [runner.handle, bare.handle, readOnly.handle] });
    expect(m.status).toBe(201);
    const by = Object.fromEntries((m.body.wakes as any[]).map((w) => [w.plate, w]));
    expect(m.body.wakes).toHaveLength(3);
    expect(by[runner.plate]).toMatchObject({ handle: runner.handle, status: 'queued', target: 'runner' });
    expect(by[runner.plate].wake_id).toMatch(/^wake/);
    expect(by[bare.plate]).toMatchObject({ status: 'inbox', target: 'pull' });
    expect(by[bare.plate].wake_id).toMatch(/^wake/);
    expect(by[bare.plate].reason).toMatch(/no runner and no live channel session/);
    expect(by[readOnly.plate]).toMatchObject({ status: 'inbox', wake_id: null });
    expect(by[readOnly.plate].reason).toMatch(/INVOKE/);
    for (const w of m.body.wakes) expect(w.reason === null || typeof w.reason === 'string').toBe(true);
    expect(by[bare.plate].reason).not.toBeNull();

    // The wake log filtered by the message: exactly this message's wakes, and the runner's ends handled.
    const byMessage = async () => (await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${m.body.message_id}`)).body.wakes as any[];
    const done = await waitFor(async () => {
      const ws = await byMessage();
      return ws.find((w) => w.plate === runner.plate && w.status === 'handled') && ws;
    }, 'the runner wake to be handled');
    expect(done.map((w: any) => w.message_id)).toEqual(done.map(() => m.body.message_id));
    expect(done.map((w: any) => w.plate).sort()).toEqual([runner.plate, bare.plate].sort());
    const other = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'again', mention_targets: [bare.handle] });
    expect((await byMessage()).some((w) => w.message_id === other.body.message_id)).toBe(false);
  });

  it("a mention by another owner without the agent owner's Trust waits in the inbox and says so", async () => {
    const room = await s.room('Cross room');
    const other = await s.owner('Bea');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: other.owner_id, role: 'member' })).status).toBeLessThan(300);
    const mine = await s.agent('Mine');
    await s.join(room, mine.plate);
    const m = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hi', mention_targets: [mine.handle] }, other.token);
    expect(m.status).toBe(201);
    expect(m.body.wakes).toEqual([{ plate: mine.plate, handle: mine.handle, wake_id: null, status: 'inbox', target: 'pull', reason: expect.stringMatching(/Trust/), reason_code: 'trust_off' }]);
  });

  it('send_message returns the wakes too (in its output schema), and ?task_id= filters the wake log', async () => {
    const room = await s.room('Tool room');
    const sender = await s.agent('Sender');
    const target = await s.agent('Target');
    await s.join(room, sender.plate);
    await s.join(room, target.plate);
    expect((await s.api('PUT', `/v1/agents/${target.plate}/runners/codex`, fixtureRunner(join(dir, 't.log')))).status).toBe(200);
    const client = await s.connect(sender.credential);
    const r = await ok(client, 'send_message', { room, body: 'over to you', mention_targets: [target.handle, sender.handle] });
    // The sender's own mention is not a wake.
    expect(r.wakes).toEqual([{ plate: target.plate, handle: target.handle, wake_id: expect.any(String), status: 'queued', target: 'runner', reason: null }]);
    await client.close();

    const t = await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Do it', definition_of_done: 'done', assignee: target.handle });
    expect(t.status).toBe(201);
    const taskId = t.body.task_id as string;
    const ws = await waitFor(async () => {
      const page = (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${taskId}`)).body.wakes as any[];
      return page.length > 0 && page;
    }, 'the task wake');
    expect(ws.every((w) => w.task_id === taskId)).toBe(true);
    expect((await s.api('GET', `/v1/agents/${target.plate}/wakes?task_id=${taskId}`)).body.wakes.length).toBe(ws.length);
  });
});
