import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { waitFor } from '../helpers/core.js';
import { openTestApp, type TestApp } from '../helpers/app.js';

/** Needs you holds only what still waits (docs/needs-you.md "What leaves by itself", "Dismissing"). */
describe('needs you clears', () => {
  let s: TestApp;
  let dir: string;
  let me: { owner_id: string; handle: string };
  beforeAll(async () => {
    s = await openTestApp({ background: true });
    dir = mkdtempSync(join(tmpdir(), 'ar-needs-clear-'));
    me = (await s.api('GET', '/v1/me')).body;
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const needs = async (room: string) => (await s.api('GET', `/v1/needs-you?room=${room}`)).body;

  it('a failed wake leaves once its retry is handled; it names the agent by handle', async () => {
    const a = await s.agent('Flaky');
    const room = await s.room('Flaky room');
    await s.join(room, a.plate);
    // Fails the first time, succeeds after (a flag file).
    const flag = join(dir, 'flaky-ran');
    const script = `const fs = require('node:fs'); if (!fs.existsSync(${JSON.stringify(flag)})) { fs.writeFileSync(${JSON.stringify(flag)}, '1'); process.exit(1); }`;
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: ['-e', script] })).status).toBe(200);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'go', mention_targets: [a.handle] });
    const item = await waitFor(async () => (await needs(room)).items.find((i: any) => i.kind === 'wake_failed'), 'the failed wake');
    expect(item.wake.handle).toBe(a.handle);
    expect(item.ref).toBe(item.wake.wake_id);
    const retry = await s.api('POST', `/v1/wakes/${item.wake.wake_id}/retry`);
    expect(retry.status).toBe(200);
    await waitFor(async () => (await s.api('GET', `/v1/agents/${a.plate}/wakes`)).body.wakes.find((w: any) => w.retry_of === item.wake.wake_id && w.status === 'handled'), 'the retry handled');
    expect((await needs(room)).items).toEqual([]);
  });

  it('a failed task leaves once retried; a stale lease once released; a mention once answered', async () => {
    const a = await s.agent('Worker');
    const room = await s.room('Work room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const t = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Will fail', definition_of_done: 'd', assignee: a.handle })).body;
    await ok(c, 'claim_task', { task_id: t.task_id });
    await ok(c, 'complete_task', { task_id: t.task_id, status: 'failed', reason: 'red' });
    const stale = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'Goes stale', definition_of_done: 'd', assignee: a.handle })).body;
    await ok(c, 'claim_task', { task_id: stale.task_id });
    s.core.db.prepare('UPDATE tasks SET lease_renewed_at = lease_renewed_at - 600000 WHERE id = ?').run(stale.task_id);
    await ok(c, 'send_message', { room, body: 'a question for you', mention_targets: [me.handle] });
    expect((await needs(room)).items.map((i: any) => i.kind).sort()).toEqual(['lease_stale', 'mention', 'task_failed']);

    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/retry`, {})).status).toBeLessThan(300);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${stale.task_id}/release`, {})).status).toBeLessThan(300);
    expect((await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'here is my answer' })).status).toBe(201);
    expect((await needs(room)).items.map((i: any) => i.kind)).toEqual([]);
  });

  it('any item can be dismissed (per owner) and restored; the Dismissed list shows it', async () => {
    const a = await s.agent('Asker');
    const room = await s.room('Ask room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    await ok(c, 'send_message', { room, body: 'dismiss me', mention_targets: [me.handle] });
    const [item] = (await needs(room)).items;
    expect(item).toMatchObject({ kind: 'mention', ref: item.message.message_id });
    const d = await s.api('POST', '/v1/needs-you/dismissals', { kind: 'mention', ref: item.ref });
    expect(d.status).toBe(201);
    expect(d.body).toMatchObject({ kind: 'mention', ref: item.ref });
    expect((await needs(room)).items).toEqual([]);
    expect((await s.api('GET', '/v1/needs-you/dismissed')).body.items.map((i: any) => [i.kind, i.ref, typeof i.dismissed_at])).toContainEqual(['mention', item.ref, 'string']);
    expect((await s.api('DELETE', `/v1/needs-you/dismissals/mention/${item.ref}`)).body).toEqual({ restored: true });
    expect((await needs(room)).items.map((i: any) => i.ref)).toEqual([item.ref]);
    expect((await s.api('DELETE', `/v1/needs-you/dismissals/mention/${item.ref}`)).body).toEqual({ restored: false });
    // Bad input is a structured error; a record one cannot see cannot be dismissed.
    const bad = await s.api('POST', '/v1/needs-you/dismissals', { kind: 'nonsense', ref: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.error_id).toBeTruthy();
    expect((await s.api('DELETE', '/v1/needs-you/dismissals/nonsense/x')).status).toBe(400);
    const bob = await s.owner('Bob Nosy');
    expect((await s.api('POST', '/v1/needs-you/dismissals', { kind: 'mention', ref: item.ref }, bob.token)).status).toBe(404);
    expect((await needs(room)).count).toBe(1);
  });

  it('a mention read in its room is acknowledged (up to the message read), for its reader only', async () => {
    const a = await s.agent('Reader');
    const room = await s.room('Read room');
    await s.join(room, a.plate);
    const c = await s.connect(a.credential);
    const first = await ok<any>(c, 'send_message', { room, body: 'first ask', mention_targets: [me.handle] });
    await ok(c, 'send_message', { room, body: 'second ask', mention_targets: [me.handle] });
    expect((await needs(room)).items).toHaveLength(2);
    const ack = await s.api('POST', `/v1/rooms/${room}/mentions/acknowledge`, { seq: first.seq });
    expect(ack.body).toEqual({ acknowledged: 1 });
    expect((await needs(room)).items.map((i: any) => i.message.body)).toEqual(['second ask']);
    // Not a member: 404; bad input: 400 with an error_id.
    const bob = await s.owner('Bob Reader');
    expect((await s.api('POST', `/v1/rooms/${room}/mentions/acknowledge`, { seq: 99 }, bob.token)).status).toBe(404);
    const bad = await s.api('POST', `/v1/rooms/${room}/mentions/acknowledge`, { seq: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.error_id).toBeTruthy();
  });

  it('a held wake leaves once dropped or released; a dropped one is not listed as failed', async () => {
    const b = await openTestApp({ background: true, wakeBudget: 1 });
    try {
      const a = await b.agent('Spender');
      const room = await b.room('Budget room');
      await b.join(room, a.plate);
      expect((await b.api('PUT', `/v1/agents/${a.plate}/runners/codex`, { command: process.execPath, args: ['-e', ''] })).status).toBe(200);
      for (let i = 1; i <= 3; i++) await b.api('POST', `/v1/rooms/${room}/messages`, { body: `hello ${i}`, mention_targets: [a.handle] });
      const held = async () => (await b.api('GET', `/v1/needs-you?room=${room}`)).body.items.filter((i: any) => i.kind === 'wake_held');
      await waitFor(async () => (await held()).length === 2, 'two held wakes');
      const [one, two] = await held();
      expect(one.wake.handle).toBe(a.handle);
      expect((await b.api('POST', `/v1/wakes/${one.ref}/drop`)).status).toBe(200);
      expect((await b.api('POST', `/v1/wakes/${two.ref}/release`)).status).toBe(200);
      const left = (await b.api('GET', `/v1/needs-you?room=${room}`)).body.items;
      expect(left.filter((i: any) => i.ref === one.ref || i.ref === two.ref)).toEqual([]);
    } finally {
      await b.stop();
    }
  });
});
