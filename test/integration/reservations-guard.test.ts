import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer, ok, type TestServer, type TestAgent } from '../helpers/server.js';
import { cliArgs } from '../helpers/cli-bundle.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The guard is a git hook: without git on PATH there is nothing to test (looked up on disk, nothing spawned). */
const hasGit = (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, 'git')));
if (!hasGit) console.warn('git not found on PATH (apt-get install git): skipping the pre-commit guard tests');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command asynchronously and resolves with its exit code and output (never rejects on a non-zero exit). */
function run(cmd: string, args: string[], opts: { cwd: string; env?: Record<string, string | undefined> }): Promise<Run> {
  const base: Record<string, string | undefined> = {};
  // The test's own settings must not leak into the commits: each case sets what an agent would have.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_ROOMS_')) base[k] = v;
  const env = { ...base, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...opts.env } as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: opts.cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** The pre-commit guard in a real git repository, against a real server (issue 19 item 4). */
describe.skipIf(!hasGit)('agent-rooms guard install: the pre-commit hook', () => {
  let s: TestServer;
  let repo: string;
  let room: string;
  let holder: TestAgent;
  let committer: TestAgent;
  const git = (args: string[], env?: Record<string, string | undefined>) => run('git', args, { cwd: repo, env });
  const commit = (msg: string, env?: Record<string, string | undefined>) => git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', msg], env);

  beforeAll(async () => {
    s = await startTestServer({ rateLimit: { perSecond: 0, burst: 1 } });
    repo = mkdtempSync(join(tmpdir(), 'agent-rooms-guard-repo-'));
    expect((await git(['init', '-q'])).code).toBe(0);
    holder = await s.agent('Holder');
    committer = await s.agent('Committer');
    room = await s.room('Guarded');
    await s.join(room, holder.plate);
    await s.join(room, committer.plate);
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
  });
  afterAll(async () => {
    await s.stop();
    rmSync(repo, { recursive: true, force: true });
  });

  it('installs a hook that holds no secret, and refuses to overwrite a foreign hook without --force', async () => {
    writeFileSync(join(repo, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const refused = await run(process.execPath, [...cliArgs(), 'guard', 'install', '--home', s.home, '--room', room], { cwd: ROOT });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--force');
    const r = await run(process.execPath, [...cliArgs(), 'guard', 'install', '--home', s.home, '--room', room, '--force'], { cwd: ROOT });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('pre-commit guard installed');
    expect(existsSync(join(repo, '.git/hooks/pre-commit.before-agent-rooms'))).toBe(true);
    const hook = readFileSync(join(repo, '.git/hooks/pre-commit'), 'utf8') + readFileSync(join(repo, '.git/hooks/agent-rooms-guard.cjs'), 'utf8');
    for (const secret of [s.ownerToken, holder.credential, committer.credential]) expect(hook).not.toContain(secret);
    expect(hook).toContain(room);
    // Installing again replaces its own hook without --force.
    const again = await run(process.execPath, [...cliArgs(), 'guard', 'install', '--home', s.home], { cwd: ROOT });
    expect(again.code, again.stderr).toBe(0);
  });

  it('allows a commit of free paths, refuses one touching a path another agent holds (naming the holder), allows the holder', async () => {
    const ch = await s.connect(holder.credential);
    await ok(ch, 'reserve_paths', { room, paths: ['src/**'], reason: 'refactor' });
    mkdirSync(join(repo, 'src'), { recursive: true });
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    writeFileSync(join(repo, 'src/a.ts'), 'export {};\n');

    await git(['add', 'README.md']);
    const free = await commit('free paths', { AGENT_ROOMS_CREDENTIAL: committer.credential });
    expect(free.code, free.stderr).toBe(0);

    await git(['add', 'src/a.ts']);
    const refused = await commit('reserved path', { AGENT_ROOMS_CREDENTIAL: committer.credential });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('commit refused');
    expect(refused.stderr).toContain(holder.handle);
    expect(refused.stderr).toContain('src/a.ts');
    expect(refused.stderr).not.toContain(committer.credential);
    // A human (no agent identity at all) is refused too.
    expect((await commit('human')).code).not.toBe(0);
    // The holder itself commits, identified by credential or by plate.
    const byPlate = await commit('holder by plate', { AGENT_ROOMS_PLATE: holder.plate });
    expect(byPlate.code, byPlate.stderr).toBe(0);
    writeFileSync(join(repo, 'src/a.ts'), 'export const x = 1;\n');
    await git(['add', 'src/a.ts']);
    const byCred = await commit('holder by credential', { AGENT_ROOMS_CREDENTIAL: holder.credential });
    expect(byCred.code, byCred.stderr).toBe(0);
    // --no-verify stays the human's escape hatch.
    writeFileSync(join(repo, 'src/a.ts'), 'export const x = 2;\n');
    await git(['add', 'src/a.ts']);
    expect((await git(['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '-q', '--no-verify', '-m', 'bypass'], { AGENT_ROOMS_CREDENTIAL: committer.credential })).code).toBe(0);
  });

  it('a server that is not running never blocks a commit: it warns', async () => {
    writeFileSync(join(repo, 'src/a.ts'), 'export const x = 3;\n');
    await git(['add', 'src/a.ts']);
    await s.running.close();
    const r = await commit('server down', { AGENT_ROOMS_CREDENTIAL: committer.credential });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/agent-rooms guard: .*(no running|not reachable).*commit allowed/);
  });
});
