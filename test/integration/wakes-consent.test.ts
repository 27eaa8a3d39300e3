import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok } from '../helpers/server.js';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';
import { waitFor } from '../helpers/core.js';
import { enqueueWake } from '../../src-main/core/wakes/store.js';

describe('wakes: who may wake whom', () => {
  let s: TestApp;
  let dir: string;
  beforeAll(async () => {
    s = await openTestApp({ database: 'home', rateLimit: { perSecond: 0, burst: 1 }, background: true, fixtureRunners: true });
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-consent-'));
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const wakesOf = async (plate: string, token?: string) => (await s.api('GET', `/v1/agents/${plate}/wakes`, undefined, token)).body.wakes as any[];

  it('an agent without INVOKE is not woken; the mention still waits in its inbox', async () => {
    const a = await s.agent('Unwakeable', { scopes: ['READ', 'WRITE'] });
    const log = join(dir, 'unwakeable.log');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log))).status).toBe(200);
    const room = await s.room('No invoke room');
    await s.join(room, a.plate);
    const msg = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'wake up?', mention_targets: [a.handle] });
    expect(msg.status).toBe(201);
    expect(await wakesOf(a.plate)).toEqual([]);
    const c = await s.connect(a.credential);
    const inbox = await ok(c, 'check_mentions', { room });
    expect(inbox.items).toHaveLength(1);
    expect(inbox.items[0].message.body).toBe('wake up?');
    expect(readRunnerLog(log)).toEqual([]);
  });

  it("cross-owner with the recipient owner's Trust off: no wake, inbox only; Trust on: woken", async () => {
    const bob = await s.owner('Bob Trust');
    const mine = await s.agent('Host agent');
    const theirs = await s.agent('Guest agent', { token: bob.token });
    const log = join(dir, 'guest.log');
    // A secondary owner configures runners only once the primary owner allowed it (issue 14, docs/security.md item 1).
    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true })).status).toBe(200);
    expect((await s.api('PUT', `/v1/agents/${theirs.plate}/runners/codex`, fixtureRunner(log), bob.token)).status).toBe(200);
    const room = await s.room('Cross room');
    await s.join(room, mine.plate);
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'member' })).status).toBe(201);
    await s.join(room, theirs.plate, bob.token);

    const off = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'Trust is off', mention_targets: [theirs.handle] });
    expect(off.status).toBe(201);
    expect(await wakesOf(theirs.plate, bob.token)).toEqual([]);
    const c = await s.connect(theirs.credential);
    const inbox = await ok(c, 'check_mentions', { room });
    expect(inbox.items.map((i: any) => [i.message.body, i.trust_level])).toEqual([['Trust is off', 'untrusted']]);

    // An agent of the other owner cannot wake it either.
    const hc = await s.connect(mine.credential);
    await ok(hc, 'send_message', { room, body: 'agent to agent', mention_targets: [theirs.handle] });
    expect(await wakesOf(theirs.plate, bob.token)).toEqual([]);

    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bob.token)).status).toBe(200);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'Trust is on', mention_targets: [theirs.handle] });
    const woken = await waitFor(async () => (await wakesOf(theirs.plate, bob.token)).find((w) => w.status === 'handled'), 'the trusted wake');
    expect(woken.trigger).toBe('mention');
    expect(readRunnerLog(log).filter((l) => l.event === 'start').map((l) => l.stdin)).toEqual(['Trust is on']);
    // The room's wake log hides another owner's runner output from this owner.
    const roomLog = (await s.api('GET', `/v1/rooms/${room}/wakes`)).body.wakes as any[];
    expect(roomLog.map((w) => w.wake_id)).toEqual([woken.wake_id]);
    expect(roomLog[0].stdout_tail).toBeNull();
  });

  it('one triggering event wakes each recipient once, even when named twice or enqueued by two paths', async () => {
    const a = await s.agent('Once');
    const room = await s.room('Once room');
    await s.join(room, a.plate);
    // The same agent by handle and by plate in one message: one wake.
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'twice named', mention_targets: [a.handle, a.plate] });
    expect(await wakesOf(a.plate)).toHaveLength(1);
    // A mention and an assignment that share their event: the second enqueue is ignored.
    const db = s.running.core.db;
    const first = enqueueWake(db, { plate: a.plate, roomId: room, trigger: 'mention', content: 'x', eventKey: 'event:1' });
    const second = enqueueWake(db, { plate: a.plate, roomId: room, trigger: 'assignment', content: 'y', eventKey: 'event:1' });
    expect(first).toBeDefined();
    expect(second).toBeUndefined();
    expect(await wakesOf(a.plate)).toHaveLength(2);
  });
});
