// A task's recorded history (docs/tasks.md "History") as an attacker would try it: read another
// room's task through a room of one's own, read a room one is not in, grow the history without end
// with lease heartbeats, or ask for more than a page's bound.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ok, startTestServer, type TestServer } from '../helpers/server.js';

describe('security: a task history is its room’s, and bounded', () => {
  let s: TestServer;
  let room: string;
  let taskId: string;
  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 0 } });
    room = await s.room('Private work');
    const a = await s.agent('Worker');
    await s.join(room, a.plate);
    taskId = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Rotate the signing key', definition_of_done: 'rotated', assignee: a.handle })).body.task_id;
    const c = await s.connect(a.credential);
    await ok(c, 'claim_task', { task_id: taskId });
    // A heartbeat flood: 300 renewals of one claim.
    for (let i = 0; i < 300; i++) await ok(c, 'renew_lease', { task_id: taskId });
    await ok(c, 'set_status', { task_id: taskId, status: 'blocked', reason: 'needs the HSM PIN' });
  });
  afterAll(async () => s?.stop());

  it('another owner reads nothing, neither through the task’s room nor through a room of her own', async () => {
    const bea = await s.owner('Bea');
    const hers = await s.room('Bea room', bea.token);
    for (const path of [`/v1/rooms/${room}/tasks/${taskId}/history`, `/v1/rooms/${hers}/tasks/${taskId}/history`]) {
      const r = await s.api('GET', path, undefined, bea.token);
      expect(r.status, path).toBe(404);
      expect(r.body.error.error_id).toMatch(/^err_/);
      expect(JSON.stringify(r.body)).not.toMatch(/HSM PIN|Rotate the signing key/);
    }
  });

  it('a room member of another room cannot reach the task through it either', async () => {
    const other = await s.room('Other room');
    const r = await s.api('GET', `/v1/rooms/${other}/tasks/${taskId}/history`);
    expect(r.status).toBe(404);
  });

  it('300 heartbeats are one event, counted; a page never exceeds its bound', async () => {
    const all = (await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}/history?limit=200`)).body.events as Array<{ kind: string; detail?: { count?: number } }>;
    const renewals = all.filter((e) => e.kind === 'lease_renewed');
    expect(renewals).toHaveLength(1);
    expect(renewals[0]!.detail!.count).toBe(300);
    expect(all.length).toBeLessThan(10);
    for (const q of ['limit=201', 'limit=0', 'limit=-1', 'after=-5', 'after=abc', `limit=${'9'.repeat(400)}`]) {
      const r = await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}/history?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('INVALID_ARGUMENT');
      expect(r.body.error.error_id).toMatch(/^err_/);
    }
  });
});
