import { describe, it, expect } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runnerRig, wakesOf } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 14, item 1 (docs/security.md): a secondary owner must not run code as the server's
 * user unless the primary owner allowed it; a runner never works in the data home; output
 * tails mask every secret the server knows.
 */
describe('security: runner rights (item 1)', () => {
  const rig = runnerRig('agent-rooms-sec-runners-', 'Bob Second');

  const runner = (extra: Record<string, unknown> = {}, env: Record<string, string> = {}) => ({
    command: process.execPath,
    args: [rig.script],
    env: { RUN_LOG: join(rig.dir, 'run.log'), ...env },
    ...extra,
  });

  it('a secondary owner without allow_runners cannot configure a command or a preset runner', async () => {
    const a = await rig.s.agent('Bob tool', { token: rig.bob.token });
    const put = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { PRINT_FILES: join(rig.s.home, 'owner-token') }), rig.bob.token);
    expect(put.status).toBe(403);
    expect(put.body.error).toMatchObject({ code: 'RUNNERS_NOT_ALLOWED', reason: 'not_allowed_by_primary_owner' });
    expect(put.body.error.message).toMatch(/primary owner/);
    expect(put.body.error.error_id).toMatch(/^err_/);
    const preset = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p' }, rig.bob.token);
    expect(preset.status).toBe(403);
    expect(preset.body.error.code).toBe('RUNNERS_NOT_ALLOWED');
    expect((await rig.s.api('GET', `/v1/agents/${a.plate}/runners`, undefined, rig.bob.token)).body.runners).toEqual([]);
  });

  it('only the primary owner grants the right; GET /v1/owners shows it', async () => {
    const carol = await rig.s.owner('Carol Third');
    // Bob cannot grant it to himself or to anyone.
    const self = await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true }, rig.bob.token);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('FORBIDDEN');
    expect((await rig.s.api('PATCH', `/v1/owners/${carol.owner_id}`, { allow_runners: true }, rig.bob.token)).status).toBe(403);
    expect((await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: 'yes' })).status).toBe(400);
    expect((await rig.s.api('PATCH', `/v1/owners/own_missing`, { allow_runners: true })).status).toBe(404);
    expect((await rig.s.api('GET', '/v1/owners', undefined, rig.bob.token)).status).toBe(403);
    const owners = (await rig.s.api('GET', '/v1/owners')).body.owners as any[];
    expect(owners.find((o) => o.is_primary).allow_runners).toBe(true);
    expect(owners.find((o) => o.owner_id === rig.bob.owner_id).allow_runners).toBe(false);
    const primaryId = owners.find((o) => o.is_primary).owner_id;
    expect((await rig.s.api('PATCH', `/v1/owners/${primaryId}`, { allow_runners: false })).status).toBe(409);

    const granted = await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true });
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ owner_id: rig.bob.owner_id, allow_runners: true });
    expect((await rig.s.api('GET', '/v1/me', undefined, rig.bob.token)).body.allow_runners).toBe(true);
    const a = await rig.s.agent('Bob allowed', { token: rig.bob.token });
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner(), rig.bob.token)).status).toBe(200);
    expect((await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: false })).status).toBe(200);
  });

  it('revoking the right disables that owner runners at once: a running run ends, a queued one is refused', async () => {
    expect((await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: true })).status).toBe(200);
    const a = await rig.s.agent('Bob runner', { token: rig.bob.token });
    const release = join(rig.dir, 'never-released');
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { RUN_RELEASE: release }), rig.bob.token)).status).toBe(200);
    const room = await rig.s.room('Bob room', rig.bob.token);
    await rig.s.join(room, a.plate, rig.bob.token);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hold on', mention_targets: [a.handle] }, rig.bob.token);
    await waitFor(async () => (await wakesOf(rig.s, a.plate, rig.bob.token)).some((w) => w.status === 'running'), 'the running wake');
    await waitFor(() => existsSync(join(rig.dir, 'run.log')) && readFileSync(join(rig.dir, 'run.log'), 'utf8').includes('"stdin":"hold on"'), 'the run started');
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'second', mention_targets: [a.handle] }, rig.bob.token);

    expect((await rig.s.api('PATCH', `/v1/owners/${rig.bob.owner_id}`, { allow_runners: false })).status).toBe(200);
    const ended = await waitFor(async () => {
      const ws = await wakesOf(rig.s, a.plate, rig.bob.token);
      return ws.length === 2 && ws.every((w) => w.status === 'failed') && ws;
    }, 'both wakes failed');
    for (const w of ended) expect(w.reason).toMatch(/runners of this agent's owner are disabled/);
    // The second never started: its one start is the first wake's.
    const starts = readFileSync(join(rig.dir, 'run.log'), 'utf8').split('\n').filter((l) => l.includes('"stdin":"hold on"'));
    expect(starts).toHaveLength(1);
    expect(readFileSync(join(rig.dir, 'run.log'), 'utf8')).not.toContain('"stdin":"second"');
    // Configuring again is refused too.
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, runner(), rig.bob.token)).status).toBe(403);
    // The runner stays listed for its owner, marked as not running.
    const listed = (await rig.s.api('GET', `/v1/agents/${a.plate}/runners`, undefined, rig.bob.token)).body.runners as any[];
    expect(listed.map((r) => [r.host, r.enabled])).toEqual([['codex', false]]);
  });

  it('the data home, anything inside it, or a link to it is refused as cwd', async () => {
    const a = await rig.s.agent('Home prober');
    mkdirSync(join(rig.s.home, 'inside'), { recursive: true });
    const link = join(rig.dir, 'link-to-home');
    symlinkSync(rig.s.home, link);
    for (const cwd of [rig.s.home, join(rig.s.home, 'blobs'), join(rig.s.home, 'inside'), join(rig.s.home, 'keys', '..'), link, join(link, 'keys')]) {
      const r = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({ cwd }));
      expect(r.status, cwd).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'cwd_in_data_home' });
      const p = await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', cwd });
      expect(p.status, cwd).toBe(400);
    }
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({ cwd: rig.dir }))).status).toBe(200);
  });

  it('by default a runner works in a scratch folder outside the home, and a cwd that became the home is refused at start', async () => {
    const a = await rig.s.agent('Default cwd');
    const log = join(rig.dir, 'default-cwd.log');
    expect((await rig.s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { RUN_LOG: log }))).status).toBe(200);
    const room = await rig.s.room('Default cwd room');
    await rig.s.join(room, a.plate);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'where do you run', mention_targets: [a.handle] });
    await waitFor(async () => (await wakesOf(rig.s, a.plate)).some((w) => w.status !== 'queued' && w.status !== 'running'), 'the wake ended');
    const cwd = JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!).cwd as string;
    expect(cwd.startsWith(rig.s.home)).toBe(false);
    expect(cwd).toContain(a.plate);
    rmSync(cwd, { recursive: true, force: true });

    // A folder that is a link into the home by the time the run starts is refused then.
    const b = await rig.s.agent('Late link');
    const late = join(rig.dir, 'late');
    mkdirSync(late);
    expect((await rig.s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, runner({ cwd: late }, { RUN_LOG: log }))).status).toBe(200);
    rmSync(late, { recursive: true });
    symlinkSync(rig.s.home, late);
    await rig.s.join(room, b.plate);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'late', mention_targets: [b.handle] });
    const w = await waitFor(async () => (await wakesOf(rig.s, b.plate)).find((x) => x.status === 'failed'), 'the refused wake');
    expect(w.reason).toMatch(/data home/);
    expect(readFileSync(log, 'utf8')).not.toContain('"stdin":"late"');
  });

  it('output tails mask every secret the server knows, not only the run credential', async () => {
    const room = await rig.s.room('Secrets room');
    const gitToken = 'ghp_SecretGitToken0123456789abcdefXYZ';
    expect((await rig.s.api('PUT', `/v1/rooms/${room}/workspace`, { repo_url: 'https://github.com/a/b.git', git_token: gitToken })).status).toBe(200);
    // Another runner's env value, and this runner's own.
    const other = await rig.s.agent('Other env');
    const otherSecret = 'other-runner-secret-value-42';
    expect((await rig.s.api('PUT', `/v1/agents/${other.plate}/runners/codex`, runner({ cwd: rig.dir }, { API_KEY: otherSecret }))).status).toBe(200);
    const ownSecret = 'own-runner-secret-value-43';
    const keyFiles = readdirSync(join(rig.s.home, 'keys')).map((f) => join(rig.s.home, 'keys', f));
    const a = await rig.s.agent('Leaky');
    const put = await rig.s.api(
      'PUT',
      `/v1/agents/${a.plate}/runners/codex`,
      runner(
        {},
        {
          MY_TOKEN: ownSecret,
          PRINT_FILES: [join(rig.s.home, 'owner-token'), ...keyFiles].join(','),
          PRINT_ENV: 'MY_TOKEN,AGENT_ROOMS_CREDENTIAL,AGENT_ROOMS_MCP_URL',
          PRINT_TEXT: `bob=${rig.bob.token} passport=eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJBREEtQUdULTAwMDAwMCJ9.c2lnbmF0dXJlc2lnbmF0dXJl`,
        },
      ),
    );
    expect(put.status).toBe(200);
    await rig.s.join(room, a.plate);
    await rig.s.api('POST', `/v1/rooms/${room}/messages`, { body: 'print your secrets', mention_targets: [a.handle] });
    const w = await waitFor(async () => (await wakesOf(rig.s, a.plate)).find((x) => x.status === 'handled' || x.status === 'failed'), 'the ended wake');
    const tails = `${w.stdout_tail}\n${w.stderr_tail}`;
    expect(tails).toContain('MY_TOKEN=');
    const secrets = [rig.s.ownerToken, rig.bob.token, gitToken, otherSecret, ownSecret, 'c2lnbmF0dXJlc2lnbmF0dXJl'];
    for (const f of keyFiles) {
      const text = readFileSync(f, 'utf8');
      secrets.push(...text.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')));
    }
    for (const secret of secrets) expect(tails, 'a secret in the output tail').not.toContain(secret);
    expect(tails).not.toMatch(/ark_[A-Za-z0-9_-]{20,}/);
    // Nor anywhere in the wake log of the room.
    const roomLog = JSON.stringify((await rig.s.api('GET', `/v1/rooms/${room}/wakes`)).body);
    for (const secret of secrets) expect(roomLog).not.toContain(secret);
    writeFileSync(join(rig.dir, 'done'), '');
  });
});
