import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { ok, type TestAgent } from '../helpers/server.js';
import type { CoreEvent } from '../../shared/core-events.js';
import { openTestApp, type AppClient, type TestApp } from '../helpers/app.js';

// The events the UI follows (shared/core-events.ts) that once had no emitter, seen on the bus.
describe('core events the UI follows', () => {
  let s: TestApp;
  let a: TestAgent;
  let ca: AppClient;
  let room: string;
  const seen: CoreEvent[] = [];

  beforeAll(async () => {
    s = await openTestApp();
    a = await s.agent('Worker');
    room = await s.room('Work');
    await s.join(room, a.plate);
    ca = await s.connect(a.credential);
    s.running.core.bus.on((e) => seen.push(e));
  });
  afterAll(async () => s.stop());

  const of = (type: CoreEvent['type']) => seen.filter((e) => e.type === type);

  it('task feedback emits feedback.changed for its room, once per recorded feedback', async () => {
    const t = await ok<{ task_id: string }>(ca, 'create_task', { room, title: 'T', definition_of_done: 'it works', assignee: a.plate });
    await ok(ca, 'claim_task', { task_id: t.task_id });
    await ok(ca, 'complete_task', { task_id: t.task_id, status: 'done', handoff_notes: 'all good' });
    const before = of('feedback.changed').length;
    await ok(ca, 'submit_task_feedback', { room, task_id: t.task_id, outcome: 'clean' });
    expect(of('feedback.changed').slice(before)).toEqual([{ type: 'feedback.changed', room }]);
    await ok(ca, 'submit_task_feedback', { room, task_id: t.task_id, outcome: 'clean' });
    expect(of('feedback.changed').length).toBe(before + 1);
  });

  it('a focus or decision set by a human emits context.changed naming the class', async () => {
    expect((await s.api('PUT', `/v1/rooms/${room}/focus`, { focus: 'ship the board' })).status).toBe(200);
    expect((await s.api('POST', `/v1/rooms/${room}/decisions`, { text: 'We keep SQLite.' })).status).toBeLessThan(300);
    expect(of('context.changed').map((e) => e.data)).toEqual([{ classes: ['focus'] }, { classes: ['decisions'] }]);
  });
});
