import { describe, it, expect, beforeAll } from 'vitest';
import { waitFor } from '../helpers/core.js';
import { runnerRig } from './helpers.js';

/**
 * Issue 47, item 1: Needs you handed another owner's runner output to a room admin. One presenter
 * (src-main/core/wakes/present.ts) now shows a wake to each viewer; here a second owner, Bea, admin
 * of the room, tries every place that hands a wake to someone, with her own owner token, and
 * never reads Ada's agent's output tails or the model line its runner printed.
 */
const OUT = 'OUT-SECRET-7f3a';
const ERR = 'ERR-SECRET-91bc';
const MODEL = 'MODEL-SECRET-c0de';
const leaks = (x: unknown) => [OUT, ERR, MODEL].filter((s) => JSON.stringify(x).includes(s));

describe('a wake, as another owner sees it (one presenter)', () => {
  const rig = runnerRig('ar-present-', 'Bea Admin');
  let room: string;
  let plate: string;
  let handle: string;
  let wakeId: string;
  let taskId: string;
  let messageId: string;

  beforeAll(async () => {
    const { s, bob: bea } = rig;
    // Bea's room; Ada accepts Bea's invitation and brings her own agent, whose runner prints secrets and fails.
    room = await s.room('Bea shared', bea.token);
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: (await s.api('GET', '/v1/me')).body.owner_id, role: 'member' }, bea.token)).status).toBe(201);
    const acc = await s.api('POST', `/v1/rooms/${room}/invitation/accept`);
    if (acc.status !== 200) console.log(JSON.stringify(acc.body));
    expect(acc.status).toBe(200);
    const a = await s.agent('Leaky');
    plate = a.plate;
    handle = a.handle;
    await s.join(room, plate);
    const script = `process.stdout.write(${JSON.stringify(OUT + '\n')}); process.stderr.write(${JSON.stringify(ERR + '\n')});
      process.stdout.write(JSON.stringify({ usage: { input_tokens: 3, output_tokens: 4, model: ${JSON.stringify(MODEL)} } }) + '\\n'); process.exitCode = 2;`;
    expect((await s.api('PUT', `/v1/agents/${plate}/runners/codex`, { command: process.execPath, args: ['-e', script] })).status).toBe(200);
    const m = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'run please', mention_targets: [handle] });
    messageId = m.body.message_id;
    const w = await waitFor(async () => (await s.api('GET', `/v1/agents/${plate}/wakes?message_id=${messageId}`)).body.wakes.find((x: any) => x.status === 'failed'), 'the failed wake');
    wakeId = w.wake_id;
    taskId = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Leaky task', definition_of_done: 'd', assignee: handle })).body.task_id;
    await waitFor(async () => (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${taskId}`)).body.wakes.find((x: any) => x.status === 'failed'), 'the task wake failed');
  });

  it('the owner reads the output, named by handle (so the attack below can fail)', async () => {
    const mine = (await rig.s.api('GET', `/v1/agents/${plate}/wakes?message_id=${messageId}`)).body.wakes[0];
    expect(mine).toMatchObject({ wake_id: wakeId, handle, plate });
    expect(leaks(mine).sort()).toEqual([ERR, MODEL, OUT].sort());
  });

  it('the room wake log, by message and by task', async () => {
    const { s, bob: bea } = rig;
    for (const q of ['', `?message_id=${messageId}`, `?task_id=${taskId}`, '?status=failed']) {
      const r = await s.api('GET', `/v1/rooms/${room}/wakes${q}`, undefined, bea.token);
      expect(r.status).toBe(200);
      expect(r.body.wakes.length).toBeGreaterThan(0);
      expect(leaks(r.body)).toEqual([]);
      for (const w of r.body.wakes) expect(w.handle).toBe(handle);
    }
  });

  it("a message's per-agent wake statuses and the task's history", async () => {
    const { s, bob: bea } = rig;
    const d = await s.api('GET', `/v1/rooms/${room}/deliveries?message_ids=${messageId}`, undefined, bea.token);
    expect(d.status).toBe(200);
    expect(JSON.stringify(d.body)).toContain(wakeId);
    expect(leaks(d.body)).toEqual([]);
    const h = await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}/history`, undefined, bea.token);
    expect(h.status).toBe(200);
    expect(h.body.events.length).toBeGreaterThan(0);
    expect(leaks(h.body)).toEqual([]);
  });

  it('Needs you of a room admin', async () => {
    const { s, bob: bea } = rig;
    const r = await s.api('GET', '/v1/needs-you', undefined, bea.token);
    const item = r.body.items.find((i: any) => i.kind === 'wake_failed' && i.wake.wake_id === wakeId);
    expect(item).toBeTruthy();
    expect(item.wake.handle).toBe(handle);
    expect(leaks(r.body)).toEqual([]);
    // And her Dismissed list, which shows the same records.
    expect((await s.api('POST', '/v1/needs-you/dismissals', { kind: 'wake_failed', ref: wakeId }, bea.token)).status).toBe(201);
    const d = await s.api('GET', '/v1/needs-you/dismissed', undefined, bea.token);
    expect(d.body.items.map((i: any) => i.ref)).toContain(wakeId);
    expect(leaks(d.body)).toEqual([]);
    expect((await s.api('DELETE', `/v1/needs-you/dismissals/wake_failed/${wakeId}`, undefined, bea.token)).body).toEqual({ restored: true });
  });

  it("the answers of acting on a wake (an admin's retry), the agent's log and the transcript", async () => {
    const { s, bob: bea } = rig;
    const retried = await s.api('POST', `/v1/wakes/${wakeId}/retry`, undefined, bea.token);
    expect(retried.status).toBe(200);
    expect(retried.body.handle).toBe(handle);
    expect(leaks(retried.body)).toEqual([]);
    expect((await s.api('GET', `/v1/agents/${plate}/wakes`, undefined, bea.token)).status).toBe(404);
    expect((await s.api('GET', `/v1/wakes/${wakeId}/transcript`, undefined, bea.token)).status).toBe(403);
  });

  it('events on the bus carry the handle and no output', async () => {
    const started = rig.s.events.filter((e) => e.type === 'wake.started' && (e.data as { plate: string }).plate === plate);
    expect(started.length).toBeGreaterThan(0);
    for (const e of started) expect((e.data as { handle: string }).handle).toBe(handle);
    expect(leaks(rig.s.events)).toEqual([]);
  });
});
