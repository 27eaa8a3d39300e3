import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addHuman, runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 14, item 3 (docs/security.md): what mayWake checked when a wake was queued is checked
 * again when it starts, and another owner's workspace path never becomes your runner's cwd.
 */
describe('security: recheck at dispatch (item 3)', () => {
  const rig = runnerRig('agent-rooms-sec-recheck-', 'Bob Victim');
  beforeAll(async () => {
    // Bob may run commands here (item 1): the attack is on his Trust and his working folder, not on that right.
    // (Not asserted: the build before issue 14 had no such route and let every owner configure runners.)
    await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true });
  });

  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);

  it('a wake queued while Trust was on does not start after Trust is turned off: it fails with a clear reason', async () => {
    const log = join(rig.dir, 'trust.log');
    const release = join(rig.dir, 'trust.release');
    const b = await rig.s.agent('Bob worker', { token: rig.bob.token });
    expect(
      (await rig.s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: [rig.script], cwd: rig.dir, env: { RUN_LOG: log, RUN_RELEASE: release } }, rig.bob.token))
        .status,
    ).toBe(200);
    const room = await rig.s.room('Recheck room');
    await addHuman(rig.s, room, rig.bob.owner_id);
    await rig.s.join(room, b.plate, rig.bob.token);
    expect((await rig.s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'trust_room' }, rig.bob.token)).status).toBe(200);

    // Bob's own mention keeps his runner busy, so the primary owner's mention waits in the queue.
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hold the queue', mention_targets: [b.handle] }, rig.bob.token);
    await waitFor(() => lines(log).some((l) => l.stdin === 'hold the queue'), 'the first run');
    const queued = await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'queued under Trust', mention_targets: [b.handle] });
    expect(queued.status).toBe(201);
    const w = await waitFor(async () => (await wakesOf(rig.s, b.plate, rig.bob.token)).find((x) => x.message_id === queued.body.message_id), 'the queued wake');
    expect(w.status).toBe('queued');

    // Bob turns Trust off, then the first run ends.
    expect((await rig.s.api('PUT', `/v1/rooms/${room}/consent`, { mode: 'blocked' }, rig.bob.token)).status).toBe(200);
    writeFileSync(release, '');
    const ended = await waitFor(
      async () => (await wakesOf(rig.s, b.plate, rig.bob.token)).find((x) => x.message_id === queued.body.message_id && x.status !== 'queued'),
      'the rechecked wake',
    );
    expect(ended.status).toBe('failed');
    expect(ended.reason).toMatch(/Trust off/);
    expect(ended.started_at).toBeNull();
    expect(lines(log).map((l) => l.stdin)).toEqual(['hold the queue']);
  });

  it("an admin's workspace local_path never becomes the working folder of another owner's runner", async () => {
    const log = join(rig.dir, 'cwd.log');
    const adminFolder = join(rig.dir, 'admin-repo');
    mkdirSync(adminFolder);
    const room = await rig.s.room('Workspace trap');
    expect((await rig.s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: adminFolder })).status).toBe(200);
    await addHuman(rig.s, room, rig.bob.owner_id);
    const b = await rig.s.agent('Bob builder', { token: rig.bob.token });
    expect((await rig.s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, { command: process.execPath, args: [rig.script], env: { RUN_LOG: log } }, rig.bob.token)).status).toBe(200);
    await rig.s.join(room, b.plate, rig.bob.token);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build it', mention_targets: [b.handle] }, rig.bob.token);
    await waitFor(() => lines(log).length > 0, 'the run');
    const cwd = lines(log)[0].cwd as string;
    expect(cwd).not.toBe(adminFolder);
    expect(cwd.startsWith(rig.s.home)).toBe(false);
    expect(cwd).toContain(b.plate);
    rmSync(cwd, { recursive: true, force: true });

    // The primary owner's own runner does work in the path it set.
    const mine = await rig.s.agent('My builder');
    const mineLog = join(rig.dir, 'mine.log');
    expect((await rig.s.api('PUT', `/v1/agents/${mine.plate}/runners/codex`, { command: process.execPath, args: [rig.script], env: { RUN_LOG: mineLog } })).status).toBe(200);
    await rig.s.join(room, mine.plate);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build mine', mention_targets: [mine.handle] });
    await waitFor(() => lines(mineLog).length > 0, 'my run');
    expect(lines(mineLog)[0].cwd).toBe(adminFolder);

    // Bob, once admin, setting another field does not make the primary owner's path his.
    expect((await rig.s.api('POST', `/v1/rooms/${room}/members`, { owner_id: rig.bob.owner_id, role: 'admin' })).status).toBe(201);
    expect((await rig.s.api('PUT', `/v1/rooms/${room}/workspace`, { repo_branch: 'main' }, rig.bob.token)).status).toBe(200);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'build again', mention_targets: [b.handle] }, rig.bob.token);
    await waitFor(() => lines(log).length > 1, 'the second run');
    expect(lines(log)[1].cwd).not.toBe(adminFolder);
  });
});
