import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestApp, type TestApp } from '../helpers/app.js';
import { wakesOf, writeRunnerScript } from './helpers.js';
import { waitFor } from '../helpers/core.js';

/**
 * Issue 14, item 1 (docs/security.md): a secondary owner must not run code as the server's
 * user unless the primary owner allowed it; a runner never works in the data home; output
 * tails mask every secret the server knows.
 */
describe('security: runner rights (item 1)', () => {
  let s: TestApp;
  let dir: string;
  let script: string;
  let bob: { owner_id: string; token: string };
  beforeAll(async () => {
    s = await openTestApp({ background: true, database: 'home', rateLimit: { perSecond: 0, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'agent-rooms-sec-runners-'));
    script = writeRunnerScript(dir);
    bob = await s.owner('Bob Second');
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const runner = (extra: Record<string, unknown> = {}, env: Record<string, string> = {}) => ({
    command: process.execPath,
    args: [script],
    env: { RUN_LOG: join(dir, 'run.log'), ...env },
    ...extra,
  });

  it('a secondary owner without allow_runners cannot configure a command or a preset runner', async () => {
    const a = await s.agent('Bob tool', { token: bob.token });
    const put = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { PRINT_FILES: join(s.home, 'owner-token') }), bob.token);
    expect(put.status).toBe(403);
    expect(put.body.error).toMatchObject({ code: 'RUNNERS_NOT_ALLOWED', reason: 'not_allowed_by_primary_owner' });
    expect(put.body.error.message).toMatch(/primary owner/);
    expect(put.body.error.error_id).toMatch(/^err_/);
    const preset = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p' }, bob.token);
    expect(preset.status).toBe(403);
    expect(preset.body.error.code).toBe('RUNNERS_NOT_ALLOWED');
    expect((await s.api('GET', `/v1/agents/${a.plate}/runners`, undefined, bob.token)).body.runners).toEqual([]);
  });

  it('only the primary owner grants the right; GET /v1/owners shows it', async () => {
    const carol = await s.owner('Carol Third');
    // Bob cannot grant it to himself or to anyone.
    const self = await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true }, bob.token);
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('FORBIDDEN');
    expect((await s.api('PATCH', `/v1/owners/${carol.owner_id}`, { allow_runners: true }, bob.token)).status).toBe(403);
    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: 'yes' })).status).toBe(400);
    expect((await s.api('PATCH', `/v1/owners/own_missing`, { allow_runners: true })).status).toBe(404);
    expect((await s.api('GET', '/v1/owners', undefined, bob.token)).status).toBe(403);
    const owners = (await s.api('GET', '/v1/owners')).body.owners as any[];
    expect(owners.find((o) => o.is_primary).allow_runners).toBe(true);
    expect(owners.find((o) => o.owner_id === bob.owner_id).allow_runners).toBe(false);
    const primaryId = owners.find((o) => o.is_primary).owner_id;
    expect((await s.api('PATCH', `/v1/owners/${primaryId}`, { allow_runners: false })).status).toBe(409);

    const granted = await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true });
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ owner_id: bob.owner_id, allow_runners: true });
    expect((await s.api('GET', '/v1/me', undefined, bob.token)).body.allow_runners).toBe(true);
    const a = await s.agent('Bob allowed', { token: bob.token });
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner(), bob.token)).status).toBe(200);
    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: false })).status).toBe(200);
  });

  it('revoking the right disables that owner runners at once: a running run ends, a queued one is refused', async () => {
    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: true })).status).toBe(200);
    const a = await s.agent('Bob runner', { token: bob.token });
    const release = join(dir, 'never-released');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { RUN_RELEASE: release }), bob.token)).status).toBe(200);
    const room = await s.room('Bob room', bob.token);
    await s.join(room, a.plate, bob.token);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'hold on', mention_targets: [a.handle] }, bob.token);
    await waitFor(async () => (await wakesOf(s, a.plate, bob.token)).some((w) => w.status === 'running'), 'the running wake');
    await waitFor(() => existsSync(join(dir, 'run.log')) && readFileSync(join(dir, 'run.log'), 'utf8').includes('"stdin":"hold on"'), 'the run started');
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'second', mention_targets: [a.handle] }, bob.token);

    expect((await s.api('PATCH', `/v1/owners/${bob.owner_id}`, { allow_runners: false })).status).toBe(200);
    const ended = await waitFor(async () => {
      const ws = await wakesOf(s, a.plate, bob.token);
      return ws.length === 2 && ws.every((w) => w.status === 'failed') && ws;
    }, 'both wakes failed');
    for (const w of ended) expect(w.reason).toMatch(/runners of this agent's owner are disabled/);
    // The second never started: its one start is the first wake's.
    const starts = readFileSync(join(dir, 'run.log'), 'utf8').split('\n').filter((l) => l.includes('"stdin":"hold on"'));
    expect(starts).toHaveLength(1);
    expect(readFileSync(join(dir, 'run.log'), 'utf8')).not.toContain('"stdin":"second"');
    // Configuring again is refused too.
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/gemini`, runner(), bob.token)).status).toBe(403);
    // The runner stays listed for its owner, marked as not running.
    const listed = (await s.api('GET', `/v1/agents/${a.plate}/runners`, undefined, bob.token)).body.runners as any[];
    expect(listed.map((r) => [r.host, r.enabled])).toEqual([['codex', false]]);
  });

  it('the data home, anything inside it, or a link to it is refused as cwd', async () => {
    const a = await s.agent('Home prober');
    mkdirSync(join(s.home, 'inside'), { recursive: true });
    const link = join(dir, 'link-to-home');
    symlinkSync(s.home, link);
    for (const cwd of [s.home, join(s.home, 'blobs'), join(s.home, 'inside'), join(s.home, 'keys', '..'), link, join(link, 'keys')]) {
      const r = await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({ cwd }));
      expect(r.status, cwd).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'cwd_in_data_home' });
      const p = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', cwd });
      expect(p.status, cwd).toBe(400);
    }
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({ cwd: dir }))).status).toBe(200);
  });

  it('by default a runner works in a scratch folder outside the home, and a cwd that became the home is refused at start', async () => {
    const a = await s.agent('Default cwd');
    const log = join(dir, 'default-cwd.log');
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, runner({}, { RUN_LOG: log }))).status).toBe(200);
    const room = await s.room('Default cwd room');
    await s.join(room, a.plate);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'where do you run', mention_targets: [a.handle] });
    await waitFor(async () => (await wakesOf(s, a.plate)).some((w) => w.status !== 'queued' && w.status !== 'running'), 'the wake ended');
    const cwd = JSON.parse(readFileSync(log, 'utf8').split('\n')[0]!).cwd as string;
    expect(cwd.startsWith(s.home)).toBe(false);
    expect(cwd).toContain(a.plate);
    rmSync(cwd, { recursive: true, force: true });

    // A folder that is a link into the home by the time the run starts is refused then.
    const b = await s.agent('Late link');
    const late = join(dir, 'late');
    mkdirSync(late);
    expect((await s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, runner({ cwd: late }, { RUN_LOG: log }))).status).toBe(200);
    rmSync(late, { recursive: true });
    symlinkSync(s.home, late);
    await s.join(room, b.plate);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'late', mention_targets: [b.handle] });
    const w = await waitFor(async () => (await wakesOf(s, b.plate)).find((x) => x.status === 'failed'), 'the refused wake');
    expect(w.reason).toMatch(/data home/);
    expect(readFileSync(log, 'utf8')).not.toContain('"stdin":"late"');
  });

  it('output tails mask every secret the server knows, not only the run credential', async () => {
    const room = await s.room('Secrets room');
    const gitToken = 'ghp_SecretGitToken0123456789abcdefXYZ';
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { repo_url: 'https://github.com/a/b.git', git_token: gitToken })).status).toBe(200);
    // Another runner's env value, and this runner's own.
    const other = await s.agent('Other env');
    const otherSecret = 'other-runner-secret-value-42';
    expect((await s.api('PUT', `/v1/agents/${other.plate}/runners/codex`, runner({ cwd: dir }, { API_KEY: otherSecret }))).status).toBe(200);
    const ownSecret = 'own-runner-secret-value-43';
    const keyFiles = readdirSync(join(s.home, 'keys')).map((f) => join(s.home, 'keys', f));
    const a = await s.agent('Leaky');
    const put = await s.api(
      'PUT',
      `/v1/agents/${a.plate}/runners/codex`,
      runner(
        {},
        {
          MY_TOKEN: ownSecret,
          PRINT_FILES: [join(s.home, 'owner-token'), ...keyFiles].join(','),
          PRINT_ENV: 'MY_TOKEN,AGENT_ROOMS_CREDENTIAL,AGENT_ROOMS_MCP_URL',
          PRINT_TEXT: `bob=${bob.token} passport=eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJBREEtQUdULTAwMDAwMCJ9.c2lnbmF0dXJlc2lnbmF0dXJl`,
        },
      ),
    );
    expect(put.status).toBe(200);
    await s.join(room, a.plate);
    await s.api('POST', `/v1/rooms/${room}/messages`, { body: 'print your secrets', mention_targets: [a.handle] });
    const w = await waitFor(async () => (await wakesOf(s, a.plate)).find((x) => x.status === 'handled' || x.status === 'failed'), 'the ended wake');
    const tails = `${w.stdout_tail}\n${w.stderr_tail}`;
    expect(tails).toContain('MY_TOKEN=');
    const secrets = [s.ownerToken, bob.token, gitToken, otherSecret, ownSecret, 'c2lnbmF0dXJlc2lnbmF0dXJl'];
    for (const f of keyFiles) {
      const text = readFileSync(f, 'utf8');
      secrets.push(...text.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----')));
    }
    for (const secret of secrets) expect(tails, 'a secret in the output tail').not.toContain(secret);
    expect(tails).not.toMatch(/ark_[A-Za-z0-9_-]{20,}/);
    // Nor anywhere in the wake log of the room.
    const roomLog = JSON.stringify((await s.api('GET', `/v1/rooms/${room}/wakes`)).body);
    for (const secret of secrets) expect(roomLog).not.toContain(secret);
    writeFileSync(join(dir, 'done'), '');
  });
});
