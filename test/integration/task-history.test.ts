import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ok, startTestServer, type TestAgent, type TestServer } from '../helpers/server.js';
import { sessionIdOf, ERROR_ID_RE, waitFor } from '../helpers/core.js';
import { receiveRunning } from '../../src-main/core/tasks/service.js';
import type { TaskEvent, TaskHistoryPage } from '../../shared/api-types.js';

/**
 * docs/tasks.md "History": every transition of the table writes its event in the same
 * transaction, in order, naming who acted. A real server on port 0, the official MCP client for
 * the agents, the /v1 routes for the owner.
 */
describe('task history', () => {
  let s: TestServer;
  let room: string;
  let dev: TestAgent;
  let rev: TestAgent;
  let devC: Client;
  let revC: Client;
  let owner: string;

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('History');
    dev = await s.agent('Dev');
    rev = await s.agent('Rev');
    await s.join(room, dev.plate);
    await s.join(room, rev.plate);
    devC = await s.connect(dev.credential);
    revC = await s.connect(rev.credential);
    owner = (await s.api('GET', '/v1/me')).body.owner_id;
  });
  afterAll(() => s?.stop());

  const history = async (taskId: string, q = ''): Promise<TaskHistoryPage> => {
    const r = await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}/history${q}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  /** The task's own changes (its wakes are checked apart: a pull wake is handled when the agent next acts). */
  const changes = async (taskId: string) => (await history(taskId, '?limit=200')).events.filter((e) => !e.kind.startsWith('wake_'));
  const brief = (e: TaskEvent) => [e.kind, e.actor.kind, e.actor.handle ?? e.actor.id, e.from ?? null, e.to ?? null, e.reason ?? null];
  const create = async (title: string, assignee = dev.handle) => {
    const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'tests pass', assignee });
    expect(r.status).toBe(201);
    return r.body.task_id as string;
  };

  it('walks claim, renewals (collapsed), block with its reason, reopen, self-release, force-release, reassignment, failure, retry, completion, review and archive', async () => {
    const me = (await s.api('GET', '/v1/me')).body;
    const ada = me.name;
    const id = await create('Write the parser');
    const devSession = sessionIdOf(devC);

    await ok(devC, 'claim_task', { task_id: id });
    for (let i = 0; i < 3; i++) await ok(devC, 'renew_lease', { task_id: id });
    await ok(devC, 'set_status', { task_id: id, status: 'blocked', reason: 'waiting on the API key' });
    await ok(devC, 'set_status', { task_id: id, status: 'todo' });
    await ok(devC, 'claim_task', { task_id: id });
    await ok(devC, 'release_task', { task_id: id });
    await ok(devC, 'claim_task', { task_id: id });
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${id}/release`)).status).toBe(200);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${id}/assign`, { assignee: rev.handle })).status).toBe(200);
    expect(receiveRunning(s.running.core.db, id, rev.plate, 'runner:rev')).toBe(true);
    await ok(revC, 'complete_task', { task_id: id, status: 'failed', reason: 'the parser generator crashed' });
    const retry = await s.api('POST', `/v1/rooms/${room}/tasks/${id}/retry`, {});
    expect(retry.status).toBe(201);
    const copy = retry.body.task_id as string;
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${id}/archive`)).status).toBe(200);

    expect((await changes(id)).map(brief)).toEqual([
      ['created', 'human', ada, null, dev.plate, null],
      ['claimed', 'agent', dev.handle, 'todo', 'doing', null],
      ['lease_renewed', 'agent', dev.handle, null, null, null],
      ['status_changed', 'agent', dev.handle, 'doing', 'blocked', 'waiting on the API key'],
      ['status_changed', 'agent', dev.handle, 'blocked', 'todo', null],
      ['claimed', 'agent', dev.handle, 'todo', 'doing', null],
      ['released', 'agent', dev.handle, 'doing', 'todo', null],
      ['claimed', 'agent', dev.handle, 'todo', 'doing', null],
      ['released', 'human', ada, 'doing', 'todo', null],
      ['reassigned', 'human', ada, dev.plate, rev.plate, null],
      ['claimed', 'agent', rev.handle, 'todo', 'doing', null],
      ['status_changed', 'agent', rev.handle, 'doing', 'failed', 'the parser generator crashed'],
      ['retried', 'human', ada, null, copy, null],
      ['archived', 'human', ada, 'failed', null, null],
    ]);
    const all = await changes(id);
    // Which instance claimed: the MCP session, then the runner's instance of the running receipt.
    expect(all[1]!.detail).toEqual({ instance_id: devSession });
    expect(all[10]!.detail).toMatchObject({ instance_id: 'runner:rev', receipt: true });
    // Three renewals of one claim are one event, counted.
    expect(all[2]!.detail).toMatchObject({ instance_id: devSession, count: 3 });
    expect(all[8]!.detail).toMatchObject({ forced: true });
    const reassigned = all[9]!;
    expect([reassigned.from_handle, reassigned.to_handle]).toEqual([dev.handle, rev.handle]);
    expect(all.every((e) => e.actor.kind !== 'human' || e.actor.id === owner)).toBe(true);
    // seq strictly increases, times never go back.
    expect(all.map((e) => e.seq)).toEqual([...all.map((e) => e.seq)].sort((a, b) => a - b));

    // The copy: created by the retry, naming the failed task; then claimed and completed with its summary; then a review.
    await ok(revC, 'claim_task', { task_id: copy });
    await ok(revC, 'complete_task', { task_id: copy, status: 'done', handoff_notes: 'parser in src/parse.ts', summary: 'parser written, 40 tests' });
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${copy}/reviews`, { verdict: 'comment', body: 'Looks right' })).status).toBe(201);
    const c = await changes(copy);
    expect(c.map(brief)).toEqual([
      ['created', 'human', ada, null, rev.plate, null],
      ['claimed', 'agent', rev.handle, 'todo', 'doing', null],
      ['completed', 'agent', rev.handle, 'doing', 'done', null],
      ['reviewed', 'human', ada, null, null, null],
    ]);
    expect(c[0]!.detail).toEqual({ retry_of: id });
    expect(c[2]!.detail).toMatchObject({ summary: 'parser written, 40 tests' });
    expect(c[3]!.detail).toMatchObject({ verdict: 'comment' });
  });

  it('records the wakes of a task (queued for the assignee, then handled or failed) by the server', async () => {
    const id = await create('Announce me');
    const h = await history(id);
    const queued = h.events.find((e) => e.kind === 'wake_queued');
    expect(queued).toMatchObject({ actor: { kind: 'server', id: 'server' }, to: dev.plate, to_handle: dev.handle, detail: { trigger: 'assignment' } });
    expect(queued!.wake_id).toMatch(/^wake_/);
    // The wake waits in the inbox for pull (no runner, no channel); the agent acting in the room handles it.
    await waitFor(async () => (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${id}`)).body.wakes.find((w: any) => w.wake_id === queued!.wake_id && w.target === 'pull'), 'the wake parked for pull');
    await ok(devC, 'claim_task', { task_id: id });
    await ok(devC, 'set_status', { task_id: id, status: 'blocked', reason: 'needs a decision' });
    const done = await waitFor(async () => (await history(id)).events.find((x) => x.kind === 'wake_handled' && x.wake_id === queued!.wake_id), 'the wake handled in the history');
    expect(done).toMatchObject({ actor: { kind: 'server' }, to: dev.plate, to_handle: dev.handle });
  });

  it('records edits and cancellation by the human', async () => {
    const id = await create('Draft');
    expect((await s.api('PATCH', `/v1/rooms/${room}/tasks/${id}`, { title: 'Draft the RFC', order: 2 })).status).toBe(200);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${id}/cancel`)).status).toBe(200);
    const c = await changes(id);
    expect(c.map((e) => e.kind)).toEqual(['created', 'edited', 'cancelled']);
    expect(c[1]!.detail).toEqual({ fields: ['title', 'order'] });
    expect(c[2]).toMatchObject({ from: 'todo', to: 'cancelled', actor: { kind: 'human' } });
  });

  it('pages with after and limit, bounded, oldest first', async () => {
    const id = await create('Many moves');
    for (let i = 0; i < 3; i++) {
      await ok(devC, 'claim_task', { task_id: id });
      await ok(devC, 'release_task', { task_id: id });
    }
    const everything = (await history(id, '?limit=200')).events;
    expect(everything.length).toBeGreaterThanOrEqual(7);
    const seen: TaskEvent[] = [];
    let after: number | null = 0;
    let pages = 0;
    while (after !== null) {
      const p = await history(id, `?limit=2&after=${after}`);
      expect(p.events.length).toBeLessThanOrEqual(2);
      seen.push(...p.events);
      after = p.next_cursor;
      pages++;
    }
    expect(seen.map((e) => e.seq)).toEqual(everything.map((e) => e.seq));
    expect(pages).toBe(Math.ceil(everything.length / 2));
    const bad = await s.api('GET', `/v1/rooms/${room}/tasks/${id}/history?limit=5000`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_ARGUMENT');
    expect(bad.body.error.error_id).toMatch(ERROR_ID_RE);
  });

  it('is for room members only, and a task of another room is not found', async () => {
    const id = await create('Private');
    const other = await s.room('Elsewhere');
    const wrongRoom = await s.api('GET', `/v1/rooms/${other}/tasks/${id}/history`);
    expect(wrongRoom.status).toBe(404);
    const bea = await s.owner('Bea');
    const outsider = await s.api('GET', `/v1/rooms/${room}/tasks/${id}/history`, undefined, bea.token);
    expect(outsider.status).toBe(404);
    expect(JSON.stringify(outsider.body)).not.toContain('Private');
  });
});
