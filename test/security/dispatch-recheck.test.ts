import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { addHuman, wakesOf, writeRunnerScript } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 14, item 3 (docs/security.md): what mayWake checked when a wake was queued is checked
 * again when it starts, and another owner's workspace path never becomes your runner's cwd.
 */
describe('security: recheck at dispatch (item 3)', () => {
  let s: TestApp;
  let dir: string;
  let script: string;
  let bob: { owner_id: string; token: string };
  beforeAll(async () => {
    s = await openTestApp({ background: true, database: 'home', rateLimit: { perSecond: 0, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-sec-recheck-'));
    script = writeRunnerScript(dir);
    bob = await s.owner('Bob Victim');
    // Bob may run commands here (item 1): the attack is on his Trust and his working folder, not on that right.
    // (Not asserted: the build before issue 14 had no such route and let every owner configure runners.)
    await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true });
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

  it('a wake queued while Trust was on does not start after Trust is turned off: it fails with a clear reason', async () => {
    const log = join(dir, 'trust.log');
    const release = join(dir, 'trust.release');
    const b = await s.agent('Bob worker', { token: bob.token });
    expect(
      (await s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: [script], cwd: dir, env: { RUN_LOG: log, RUN_RELEASE: release } }, bob.token))
        .status,
    ).toBe(200);
    const room = await s.room('Recheck room');
    await addHuman(s, room, bob.owner_id);
    await s.join(room, b.plate, bob.token);
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, bob.token)).status).toBe(200);

    // Bob's own mention keeps his runner busy, so the primary owner's mention waits in the queue.
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hold the queue', mention_targets: [b.handle] }, bob.token);
    await waitFor(() => lines(log).some((l) => l.stdin === 'hold the queue'), 'the first run');
    const queued = await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'queued under Trust', mention_targets: [b.handle] });
    expect(queued.status).toBe(201);
    const w = await waitFor(async () => (await wakesOf(s, b.plate, bob.token)).find((x) => x.message_id === queued.body.message_id), 'the queued wake');
    expect(w.status).toBe('queued');

    // Bob turns Trust off, then the first run ends.
    expect((await s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'blocked' }, bob.token)).status).toBe(200);
    writeFileSync(release, '');
    const ended = await waitFor(
      async () => (await wakesOf(s, b.plate, bob.token)).find((x) => x.message_id === queued.body.message_id && x.status !== 'queued'),
      'the rechecked wake',
    );
    expect(ended.status).toBe('failed');
    expect(ended.reason).toMatch(/Trust off/);
    expect(ended.started_at).toBeNull();
    expect(lines(log).map((l) => l.stdin)).toEqual(['hold the queue']);
  });

  it("an admin's workspace local_path never becomes the working folder of another owner's runner", async () => {
    const log = join(dir, 'cwd.log');
    const adminFolder = join(dir, 'admin-repo');
    mkdirSync(adminFolder);
    const room = await s.room('Workspace trap');
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: adminFolder })).status).toBe(200);
    await addHuman(s, room, bob.owner_id);
    const b = await s.agent('Bob builder', { token: bob.token });
    expect((await s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: [script], env: { RUN_LOG: log } }, bob.token)).status).toBe(200);
    await s.join(room, b.plate, bob.token);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build it', mention_targets: [b.handle] }, bob.token);
    await waitFor(() => lines(log).length > 0, 'the run');
    const cwd = lines(log)[0].cwd as string;
    expect(cwd).not.toBe(adminFolder);
    expect(cwd.startsWith(s.home)).toBe(false);
    expect(cwd).toContain(b.plate);
    rmSync(cwd, { recursive: true, force: true });

    // The primary owner's own runner does work in the path it set.
    const mine = await s.agent('My builder');
    const mineLog = join(dir, 'mine.log');
    expect((await s.api('PUT', `/v1/agents/${mine.plate}/runners/codex`, { command: process.execPath, args: [script], env: { RUN_LOG: mineLog } })).status).toBe(200);
    await s.join(room, mine.plate);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build mine', mention_targets: [mine.handle] });
    await waitFor(() => lines(mineLog).length > 0, 'my run');
    expect(lines(mineLog)[0].cwd).toBe(adminFolder);

    // Bob, once admin, setting another field does not make the primary owner's path his.
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bob.owner_id, role: 'admin' })).status).toBe(201);
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { repo_branch: 'main' }, bob.token)).status).toBe(200);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build again', mention_targets: [b.handle] }, bob.token);
    await waitFor(() => lines(log).length > 1, 'the second run');
    expect(lines(log)[1].cwd).not.toBe(adminFolder);
  });
});
