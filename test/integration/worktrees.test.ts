import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';

/**
 * Task worktrees (docs/worktrees.md) with the real server, the system git on temp repositories
 * and the fixture agent as a command runner: each task's runs work in a worktree of its own on
 * its own branch, what a run leaves is committed by the agent, a deleted worktree comes back,
 * cancel and archive remove it (never under a running run), and bad input leaves nothing half made.
 */
const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout.trim();

let s: TestServer;
let dir: string;

async function makeRepo(name: string): Promise<string> {
  const repo = join(dir, name);
  mkdirSync(repo);
  await git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# base\n');
  await git(repo, 'add', '.');
  await git(repo, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.invalid', 'commit', '-q', '-m', 'base');
  return repo;
}

async function roomWithRepo(name: string, repo: string | null): Promise<string> {
  const room = await s.room(name);
  if (repo) expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
  return room;
}

async function agentWithRunner(room: string, name: string, extra: Record<string, unknown> = {}) {
  const a = await s.agent(name);
  await s.join(room, a.plate);
  const log = join(dir, `${name}.log`);
  expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(log, extra))).status).toBe(200);
  return { ...a, log };
}

async function assign(room: string, plate: string, title: string): Promise<any> {
  const r = await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'it is written', assignee: plate });
  expect(r.status).toBe(201);
  return r.body;
}

async function wakesOfTask(room: string, taskId: string): Promise<any[]> {
  return (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${taskId}`)).body.wakes as any[];
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ended = (room: string, taskId: string) =>
  until(`the wake of ${taskId} to end`, async () => {
    const w = (await wakesOfTask(room, taskId)).find((x) => x.status === 'handled' || x.status === 'failed');
    return w;
  });

const taskOf = async (room: string, taskId: string) => (await s.api('GET', `/v1/rooms/${room}/tasks/${taskId}`)).body;

/** A task whose first run wrote in its worktree and left it doing, and a second agent to reassign it to. */
async function keptOpenTask(name: string, first: string, second: string, title: string) {
  const repo = await makeRepo(name);
  const room = await roomWithRepo(name, repo);
  const a = await agentWithRunner(room, first);
  const b = await agentWithRunner(room, second);
  const t = await assign(room, a.plate, `${title}, keep open`);
  await ended(room, t.task_id);
  return { repo, room, a, b, t, rec: await taskOf(room, t.task_id) };
}

/** The task's ended wakes, newest first, once there are `n`. */
const endedWakes = (room: string, taskId: string, n: number) =>
  until(`${n} wakes of ${taskId} to end`, async () => {
    const ws = (await wakesOfTask(room, taskId)).filter((w) => w.status === 'handled' || w.status === 'failed');
    return ws.length >= n ? ws : undefined;
  });

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'agent-rooms-worktrees-'));
});
afterAll(async () => {
  await s?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('task worktrees', () => {
  it('runs two tasks at once, each in a worktree of its own on its own branch, and leaves the base folder untouched', async () => {
    const repo = await makeRepo('two');
    const room = await roomWithRepo('two tasks', repo);
    const ana = await agentWithRunner(room, 'ana');
    const ben = await agentWithRunner(room, 'ben');
    const baseHead = await git(repo, 'rev-parse', 'HEAD');
    const t1 = await assign(room, ana.plate, 'write the CHANGELOG entry for 0.2 slowly');
    const t2 = await assign(room, ben.plate, 'write the release notes slowly');
    const [w1, w2] = await Promise.all([ended(room, t1.task_id), ended(room, t2.task_id)]);
    expect(w1.status, w1.reason).toBe('handled');
    expect(w2.status, w2.reason).toBe('handled');

    const [r1, r2] = [await taskOf(room, t1.task_id), await taskOf(room, t2.task_id)];
    expect(r1.worktree.path).not.toBe(r2.worktree.path);
    expect(r1.worktree.branch).toMatch(/^rooms\/[a-z0-9]{1,8}-write-the-changelog-entry-for-0-2-slowly$/);
    expect(r2.worktree.branch).toMatch(/^rooms\/[a-z0-9]{1,8}-write-the-release-notes-slowly$/);
    expect(r1.worktree.base_branch).toBe('main');
    expect(r1.worktree.base_commit).toBe(baseHead);
    expect(r1.worktree.path.startsWith(s.running.core.config.worktreesDir)).toBe(true);

    // Each run worked in its own worktree, and was told so in the payload and the envelope.
    const wrote1 = readRunnerLog(ana.log).find((l) => (l.event as string) === 'wrote') as any;
    expect(wrote1.cwd).toBe(r1.worktree.path);
    expect(wrote1.worktree).toEqual(r1.worktree);
    expect(wrote1.envelope_worktree).toEqual(r1.worktree);
    expect(wrote1.work).toBe('edit');

    // What each run left is a commit by the agent on its branch, naming the wake; the base is as it was.
    for (const [t, w, who] of [[r1, w1, ana], [r2, w2, ben]] as const) {
      const log = await git(repo, 'log', '-1', '--format=%an%n%B', t.worktree.branch);
      expect(log).toContain(who.handle.replace(/\(.*\)$/, ''));
      expect(log).toContain(w.wake_id);
      const files = await git(repo, 'show', '--name-only', '--format=', t.worktree.branch);
      expect(files).toBe(`work/${w.wake_id}.txt`);
      expect(await git(t.worktree.path, 'status', '--porcelain')).toBe('');
    }
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(baseHead);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(repo, 'work'))).toBe(false);
  });

  it('keeps a transcript of the run, paged with ?after= and free of credentials', async () => {
    const repo = await makeRepo('transcript');
    const room = await roomWithRepo('transcript', repo);
    const a = await agentWithRunner(room, 'cleo');
    const t = await assign(room, a.plate, 'write a transcript');
    const w = await ended(room, t.task_id);
    const page = (await s.api('GET', `/v1/wakes/${w.wake_id}/transcript?limit=1`)).body;
    // The transcript names its agent by handle beside the plate.
    expect([page.plate, page.handle]).toEqual([a.plate, a.handle]);
    expect(page.events).toHaveLength(1);
    expect(page.next_after).toBe(page.events[0].seq);
    const rest = (await s.api('GET', `/v1/wakes/${w.wake_id}/transcript?after=${page.next_after}`)).body;
    const all = [...page.events, ...rest.events];
    expect(all.map((e: any) => e.summary).join('\n')).toContain(`wrote work/${w.wake_id}.txt`);
    expect(all.some((e: any) => e.summary.startsWith('committed what the run left uncommitted on rooms/'))).toBe(true);
    expect(JSON.stringify(all)).not.toMatch(/ark_[A-Za-z0-9_-]{20,}/);
    expect(page.last_output_at).not.toBeNull();
    expect(rest.next_after).toBeNull();
  });

  it('archiving a done task removes its worktree and keeps its branch; its transcript is its agent owner\'s to read', async () => {
    const repo = await makeRepo('archive');
    const room = await roomWithRepo('archive', repo);
    const a = await agentWithRunner(room, 'kim');
    const t = await assign(room, a.plate, 'write and finish');
    const w = await ended(room, t.task_id);
    const rec = await until('the task done', async () => {
      const r = await taskOf(room, t.task_id);
      return r.status === 'done' ? r : undefined;
    });
    expect(existsSync(rec.worktree.path)).toBe(true);
    // Another owner who is a member of the room sees the run, not its output; a stranger does not learn it exists.
    const bea = await s.owner('Bea Archive');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' })).status).toBeLessThan(300);
    const member = await s.api('GET', `/v1/wakes/${w.wake_id}/transcript`, undefined, bea.token);
    expect(member.status).toBe(403);
    expect(member.body.error.error_id).toBeTruthy();
    const cy = await s.owner('Cy Stranger');
    expect((await s.api('GET', `/v1/wakes/${w.wake_id}/transcript`, undefined, cy.token)).status).toBe(404);
    expect((await s.api('GET', `/v1/wakes/${w.wake_id}/transcript?after=-1`)).status).toBe(400);
    expect((await s.api('GET', `/v1/wakes/${w.wake_id}/transcript?limit=501`)).status).toBe(400);

    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/archive`)).status).toBe(200);
    const after = await until('the worktree to go', async () => {
      const r = await taskOf(room, t.task_id);
      return r.worktree === null ? r : undefined;
    });
    expect(after.worktree_reason).toMatch(/removed/);
    expect(existsSync(rec.worktree.path)).toBe(false);
    expect(await git(repo, 'log', '-1', '--format=%B', rec.worktree.branch)).toContain(w.wake_id);
  });

  it('recreates a worktree whose folder was deleted, on the same branch with the work kept', async () => {
    const { room, b, t, rec: first } = await keptOpenTask('recreate', 'dora', 'dan', 'write the first part');
    rmSync(first.worktree.path, { recursive: true, force: true });
    // Reassigned, the task's next run works in the same worktree, made again from its branch.
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/assign`, { assignee: b.plate })).status).toBe(200);
    const done = await endedWakes(room, t.task_id, 2);
    expect(done[0].status, done[0].reason).toBe('handled');
    const second = await taskOf(room, t.task_id);
    expect(second.worktree).toEqual(first.worktree);
    expect(await git(first.worktree.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(first.worktree.branch);
    // Both runs' work is there: the first run's commit came back with the branch, the second added its own.
    expect(readdirOf(join(first.worktree.path, 'work'))).toHaveLength(2);
  });

  it('a folder in the way of a worktree is never deleted: the run fails saying so, and the files stay', async () => {
    const { room, b, t, rec } = await keptOpenTask('in the way', 'lea', 'leo', 'write something');
    // The folder is no longer a worktree (its .git link gone) but holds files.
    rmSync(join(rec.worktree.path, '.git'), { force: true });
    writeFileSync(join(rec.worktree.path, 'notes.md'), 'mine\n');
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/assign`, { assignee: b.plate })).status).toBe(200);
    const second = (await endedWakes(room, t.task_id, 2))[0];
    expect(second.status).toBe('failed');
    expect(second.reason).toContain('is in the way');
    expect(readFileSync(join(rec.worktree.path, 'notes.md'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(rec.worktree.path, 'work', `${(await endedWakes(room, t.task_id, 2))[1].wake_id}.txt`), 'utf8')).toContain('write something');
    expect(readRunnerLog(b.log)).toHaveLength(0);
  });

  it('removes the worktree when the task is cancelled, but never under a running run', async () => {
    const repo = await makeRepo('cancel');
    const room = await roomWithRepo('cancel', repo);
    const a = await agentWithRunner(room, 'eve');
    const t = await assign(room, a.plate, 'sleep while the task is cancelled');
    await until('the run to start', async () => (await wakesOfTask(room, t.task_id)).find((w) => w.status === 'running' && w.started_at));
    const wt = await until('the worktree', async () => (await taskOf(room, t.task_id)).worktree ?? undefined);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/cancel`, {})).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(wt.path)).toBe(true);
    const w = (await wakesOfTask(room, t.task_id)).find((x) => x.status === 'running');
    expect((await s.api('POST', `/v1/wakes/${w.wake_id}/stop`)).status).toBe(200);
    const after = await until('the worktree to go', async () => {
      const rec = await taskOf(room, t.task_id);
      return rec.worktree === null ? rec : undefined;
    });
    expect(existsSync(wt.path)).toBe(false);
    expect(after.worktree_reason).toMatch(/removed/);
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain(wt.path);
    // The branch and its work stay.
    expect(await git(repo, 'branch', '--list', wt.branch)).toContain(wt.branch);
  });

  it('a workspace that is not a git repository: the run works in the folder, and the task says why', async () => {
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    const room = await roomWithRepo('plain', plain);
    const a = await agentWithRunner(room, 'finn');
    const t = await assign(room, a.plate, 'write in a plain folder');
    const w = await ended(room, t.task_id);
    expect(w.status, w.reason).toBe('handled');
    const rec = await taskOf(room, t.task_id);
    expect(rec.worktree).toBeNull();
    expect(rec.worktree_reason).toMatch(/not the top of a git repository/);
    const wrote = readRunnerLog(a.log).find((l) => (l.event as string) === 'wrote') as any;
    expect(wrote.cwd).toBe(plain);
    expect(wrote.work).toBe('room');
    expect(existsSync(join(plain, 'work', `${w.wake_id}.txt`))).toBe(true);
  });

  it('a missing base branch fails the wake with git\'s reason and leaves no worktree behind', async () => {
    const repo = await makeRepo('nobase');
    const room = await roomWithRepo('no base', repo);
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { repo_branch: 'release-9' })).status).toBe(200);
    const a = await agentWithRunner(room, 'gus');
    const t = await assign(room, a.plate, 'write on a branch that is not there');
    const w = await ended(room, t.task_id);
    expect(w.status).toBe('failed');
    expect(w.reason).toContain('the base branch "release-9" does not exist');
    expect((await taskOf(room, t.task_id)).worktree).toBeNull();
    expect(await git(repo, 'worktree', 'list')).not.toContain(s.running.core.config.worktreesDir);
    expect(await git(repo, 'branch', '--list', 'rooms/*')).toBe('');
    expect(readRunnerLog(a.log)).toHaveLength(0);
  });

  it('a hostile title gives a valid branch and runs nothing', async () => {
    const repo = await makeRepo('hostile');
    const room = await roomWithRepo('hostile', repo);
    const a = await agentWithRunner(room, 'hal');
    const marker = join(dir, 'pwned');
    const t = await assign(room, a.plate, `write --upload-pack=touch ${marker} ../../../etc/passwd $(touch ${marker}) ;rm -rf / ..lock @{x}`);
    const w = await ended(room, t.task_id);
    expect(w.status, w.reason).toBe('handled');
    const rec = await taskOf(room, t.task_id);
    expect(rec.worktree.branch).toMatch(/^rooms\/[a-z0-9]+-[a-z0-9-]+$/);
    expect(rec.worktree.branch.length).toBeLessThanOrEqual('rooms/'.length + 8 + 1 + 40);
    expect(rec.worktree.path.startsWith(s.running.core.config.worktreesDir)).toBe(true);
    await run('git', ['check-ref-format', `refs/heads/${rec.worktree.branch}`], { cwd: repo });
    expect(existsSync(marker)).toBe(false);
  });

  it('a locked index in the worktree fails the commit with git\'s words, and the work stays in the folder', async () => {
    const { room, b, t, rec } = await keptOpenTask('locked', 'ivy', 'ivan', 'write the first draft');
    const gitDir = await git(rec.worktree.path, 'rev-parse', '--absolute-git-dir');
    writeFileSync(join(rec.worktree.path, 'draft.md'), 'by hand\n');
    writeFileSync(join(gitDir, 'index.lock'), '');
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/assign`, { assignee: b.plate })).status).toBe(200);
    const second = (await endedWakes(room, t.task_id, 2))[0];
    expect(second.reason).toContain("the run's changes were not committed (they are still in the worktree)");
    expect(second.reason).toMatch(/index\.lock/);
    expect(readFileSync(join(rec.worktree.path, 'draft.md'), 'utf8')).toBe('by hand\n');
  });

  it('doctor: the server\'s git and its version, and the orphan worktree folders (for the primary owner only)', async () => {
    const wtDir = s.running.core.config.worktreesDir;
    const orphan = join(wtDir, 'room_gone', 'task_gone');
    mkdirSync(orphan, { recursive: true });
    const d = (await s.api('GET', '/v1/doctor/worktrees')).body;
    expect(d.git.ok).toBe(true);
    expect(d.git.version).toMatch(/^\d+\.\d+/);
    expect(d.git.min_version).toBe('2.25.0');
    expect(d.worktrees_dir).toBe(wtDir);
    expect(d.orphans).toContainEqual({ path: orphan, room: 'room_gone', task_id: 'task_gone', why: 'its task is gone' });
    // A live task's worktree is not an orphan.
    expect(d.orphans.some((o: any) => !o.task_id.endsWith('gone') && o.why === 'its task is gone')).toBe(false);
    expect(d.work.some((w: any) => w.preset === 'codex exec' && w.policy === 'edit')).toBe(true);
    // Another owner learns the machine's git, not the folders of every room.
    const other = await s.owner('Bea');
    const d2 = (await s.api('GET', '/v1/doctor/worktrees', undefined, other.token)).body;
    expect(d2.orphans).toEqual([]);
    expect(d2.task_worktrees).toBeNull();
    rmSync(join(wtDir, 'room_gone'), { recursive: true, force: true });
  });

  it('connect-style runners: work room is the room only, and full is refused where the host has no sandbox', async () => {
    const a = await s.agent('jo');
    const room = await roomWithRepo('policy', null);
    await s.join(room, a.plate);
    const edit = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', work: 'room' });
    expect(edit.status).toBe(200);
    expect(edit.body.work).toBe('room');
    const full = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', work: 'full', env: { PATH: '/nonexistent' } });
    expect(full.status).toBe(400);
    expect(full.body.error.message).toContain("refused rather than done without the host's sandbox");
    expect(full.body.error.error_id).toBeTruthy();
    const cursor = await s.api('PUT', `/v1/agents/${a.plate}/runners/cursor`, { preset: 'cursor-agent -p', work: 'edit' });
    expect(cursor.status).toBe(400);
    const bad = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', work: 'everything' });
    expect(bad.status).toBe(400);
    // A save that leaves the env out (the window changing only the policy) keeps the env it cannot show.
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', env: { ANTHROPIC_API_KEY: 'sk-kept' } })).status).toBe(200);
    const kept = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', work: 'edit' });
    expect(kept.body).toMatchObject({ work: 'edit', env: { ANTHROPIC_API_KEY: '***' } });
    const cleared = await s.api('PUT', `/v1/agents/${a.plate}/runners/claude-code`, { preset: 'claude -p', env: {} });
    expect(cleared.body.env).toEqual({});
    expect(cleared.body.work).toBeNull();
  });
});

function readdirOf(p: string): string[] {
  try {
    return readdirSync(p);
  } catch {
    return [];
  }
}
