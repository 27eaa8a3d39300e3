import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startTestServer, type TestServer } from '../helpers/server.js';
import { fixtureRunner, readRunnerLog } from './wakes-helpers.js';

/**
 * Humans review the work (docs/review.md) through the human API, with the real server and the
 * system git on temp repositories: a task's changes after an agent's run, its merge (squash and
 * merge commit) into the base branch in the workspace folder, a refusal that leaves the folder
 * exactly as it was, who may merge, and a push to the workspace's remote.
 */
const run = promisify(execFile);
const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout.trim();

let s: TestServer;
let dir: string;

async function repoRoom(name: string) {
  const repo = join(dir, name.replace(/\W+/g, '-'));
  mkdirSync(repo);
  await git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# base\n');
  await git(repo, 'add', '.');
  await git(repo, '-c', 'user.name=Ada', '-c', 'user.email=ada@example.invalid', 'commit', '-q', '-m', 'base');
  const room = await s.room(name);
  expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: repo })).status).toBe(200);
  const a = await s.agent(`${name} agent`);
  await s.join(room, a.plate);
  expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(join(dir, `${a.plate}.log`)))).status).toBe(200);
  return { repo, room, a };
}

/** A task the fixture agent writes work/<wake>.txt for and completes; its record once done. */
async function doneTask(room: string, plate: string, title: string) {
  const t = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'written', assignee: plate })).body;
  const end = Date.now() + 20_000;
  for (;;) {
    const rec = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}`)).body;
    const wakes = (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${t.task_id}`)).body.wakes as any[];
    if (rec.status === 'done' && wakes.every((w) => w.status !== 'running' && w.status !== 'queued')) return rec;
    if (Date.now() > end) throw new Error(`task ${title} did not end: ${JSON.stringify(rec)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A task kept open by its first run ("… keep open": the fixture writes and replies, the task stays doing); its record then. */
async function keptOpen(room: string, plate: string, title: string) {
  const t = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title, definition_of_done: 'x', assignee: plate })).body;
  const end = Date.now() + 20_000;
  for (;;) {
    const r = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}`)).body;
    const ws = (await s.api('GET', `/v1/rooms/${room}/wakes?task_id=${t.task_id}`)).body.wakes as any[];
    if (r.worktree && ws.some((w) => w.status === 'handled')) return r;
    if (Date.now() > end) throw new Error(`no first run of ${title}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** Every tracked and untracked file's bytes, HEAD, and whether a merge is in progress: the folder "exactly as it was". */
async function snapshot(repo: string): Promise<string> {
  const files = (await git(repo, 'ls-files', '-co', '--exclude-standard')).split('\n').filter(Boolean).sort();
  const h = createHash('sha256');
  for (const f of files) h.update(f).update(readFileSync(join(repo, f)));
  return JSON.stringify({ head: await git(repo, 'rev-parse', 'HEAD'), branch: await git(repo, 'symbolic-ref', 'HEAD'), bytes: h.digest('hex'), merging: existsSync(join(repo, '.git', 'MERGE_HEAD')) });
}

beforeAll(async () => {
  s = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'agent-rooms-review-'));
});
afterAll(async () => {
  await s?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('review: changes, merge, push', () => {
  it('shows what the run changed, merges it squashed into the base branch, and retires the worktree', async () => {
    const { repo, room, a } = await repoRoom('squash');
    const rec = await doneTask(room, a.plate, 'write the notes');
    expect(rec.allowed_actions).toContain('merge');
    const ch = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/changes`)).body;
    expect(ch.base).toEqual({ branch: 'main', commit: rec.worktree.base_commit });
    expect(ch.head.branch).toBe(rec.worktree.branch);
    expect(ch.uncommitted).toBe(false);
    expect(ch.truncated).toBe(false);
    expect(ch.files).toHaveLength(1);
    expect(ch.files[0]).toMatchObject({ status: 'added', additions: 1, deletions: 0, binary: false });
    expect(ch.files[0].path).toMatch(/^work\/wake_.*\.txt$/);
    expect(ch.files[0].hunks[0].lines).toEqual([{ kind: 'add', new: 1, text: 'write the notes' }]);

    const m = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, { strategy: 'squash', delete_branch: true });
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.merged.commit).toBe(await git(repo, 'rev-parse', 'HEAD'));
    expect(m.body.allowed_actions).not.toContain('merge');
    // Squashed: one parent, the file in the base branch, the workspace on it and clean.
    expect((await git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD')).split(' ')).toHaveLength(2);
    expect(existsSync(join(repo, ch.files[0].path))).toBe(true);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    const after = await (async () => {
      const end = Date.now() + 10_000;
      for (;;) {
        const r = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}`)).body;
        if (r.worktree === null || Date.now() > end) return r;
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    expect(after.worktree).toBeNull();
    expect(after.worktree_reason).toMatch(/merged/);
    expect(existsSync(rec.worktree.path)).toBe(false);
    expect(await git(repo, 'branch', '--list', rec.worktree.branch)).toBe('');
    // A second merge is refused; the changes say why there are none now.
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, {})).status).toBe(409);
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/changes`)).body).toEqual({ files: [], reason: expect.stringMatching(/merged/) });
    // The task's history records the merge once, by the owner, with its commit (docs/tasks.md "History").
    const merges = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/history?limit=200`)).body.events.filter((e: { kind: string }) => e.kind === 'merged');
    expect(merges).toEqual([expect.objectContaining({ actor: expect.objectContaining({ kind: 'human' }), detail: { commit: m.body.merged.commit, into: 'main', strategy: 'squash' } })]);
  });

  it('a dirty workspace is refused with the paths, and left exactly as it was; a merge commit once it is clean', async () => {
    const { repo, room, a } = await repoRoom('dirty');
    const rec = await doneTask(room, a.plate, 'write the draft');
    writeFileSync(join(repo, 'README.md'), '# base, edited by hand\n');
    const before = await snapshot(repo);
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, { strategy: 'merge' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'CONFLICT', reason: 'dirty', details: { paths: ['README.md'], folder: repo } });
    expect(r.body.error.error_id).toBeTruthy();
    expect(await snapshot(repo)).toBe(before);
    // On another branch: refused too, nothing moved.
    await git(repo, 'checkout', '-q', '--', 'README.md');
    await git(repo, 'checkout', '-q', '-b', 'elsewhere');
    const off = await snapshot(repo);
    const r2 = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, {});
    expect(r2.body.error.reason).toBe('not_on_base');
    expect(await snapshot(repo)).toBe(off);
    await git(repo, 'checkout', '-q', 'main');
    const ok = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, { strategy: 'merge' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect((await git(repo, 'rev-list', '--parents', '-n', '1', 'HEAD')).split(' ')).toHaveLength(3);
    // The branch stays unless asked.
    expect(await git(repo, 'branch', '--list', rec.worktree.branch)).toContain(rec.worktree.branch);
  });

  it('a second merge that conflicts is refused with the path named, and the workspace is byte for byte as before', async () => {
    const { repo, room, a } = await repoRoom('conflict');
    const one = await doneTask(room, a.plate, 'write the first version');
    const two = await doneTask(room, a.plate, 'write the second version');
    for (const [t, text] of [[one, 'one'], [two, 'two']] as const) {
      writeFileSync(join(t.worktree.path, 'README.md'), `# ${text}\n`);
      await git(t.worktree.path, '-c', 'user.name=Ag', '-c', 'user.email=ag@example.invalid', 'commit', '-qam', `readme ${text}`);
    }
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${one.task_id}/merge`, {})).status).toBe(200);
    const before = await snapshot(repo);
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${two.task_id}/merge`, { strategy: 'squash' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ reason: 'conflict', details: { paths: ['README.md'], folder: repo } });
    expect(r.body.error.message).toContain('README.md');
    expect(await snapshot(repo)).toBe(before);
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${two.task_id}`)).body.merged).toBeNull();
  });

  it('only the solo-room owner or a room admin merges; a task that is not done is refused', async () => {
    const { room, a } = await repoRoom('rights');
    const rec = await doneTask(room, a.plate, 'write the thing');
    const bea = await s.owner('Bea Review');
    expect((await s.api('POST', `/v1/rooms/${room}/members`, { owner_id: bea.owner_id, role: 'member' })).status).toBeLessThan(300);
    const seen = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}`, undefined, bea.token)).body;
    expect(seen.allowed_actions).not.toContain('merge');
    expect(seen.denied_actions.merge).toMatchObject({ code: 'agent_owner_only', message: expect.stringMatching(/merge/) });
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/merge`, {}, bea.token);
    expect(r.status).toBe(403);
    // Any member reads the changes.
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/changes`, undefined, bea.token)).body.files).toHaveLength(1);
    const cy = await s.owner('Cy Outside');
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/changes`, undefined, cy.token)).status).toBe(404);
    const todo = (await s.api('POST', `/v1/rooms/${room}/tasks`, { title: 'sleep while asked to merge', definition_of_done: 'x', assignee: a.plate })).body;
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${todo.task_id}/merge`, {})).body.error.reason).toMatch(/not_done|no_worktree/);
    expect((await s.api('POST', `/v1/rooms/${room}/tasks/${todo.task_id}/merge`, { strategy: 'rebase' })).status).toBe(400);
    await s.api('POST', `/v1/rooms/${room}/tasks/${todo.task_id}/cancel`);
  });

  it('pushes the branch to the workspace remote and never shows the token', async () => {
    const { repo, room, a } = await repoRoom('push');
    const remote = join(dir, 'push-remote.git');
    await run('git', ['init', '-q', '--bare', remote]);
    await git(repo, 'remote', 'add', 'origin', remote);
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { git_token: 'ghp_secretsecretsecret123456' })).status).toBe(200);
    const rec = await doneTask(room, a.plate, 'write for the remote');
    const p = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/push`, {});
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body).toMatchObject({ branch: rec.worktree.branch });
    expect(JSON.stringify(p.body)).not.toContain('ghp_secret');
    expect(await git(remote, 'rev-parse', `refs/heads/${rec.worktree.branch}`)).toBe(await git(repo, 'rev-parse', rec.worktree.branch));
  });

  it('a review comments on lines: one message mentions the assignee with path:line, the quoted line and the comment, and wakes it in the worktree', async () => {
    const { room, a } = await repoRoom('comment');
    const log = join(dir, `${a.plate}.log`);
    const rec = await keptOpen(room, a.plate, 'write a draft, keep open');
    const t = rec;
    const file = (await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}/changes`)).body.files[0].path as string;
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`, { verdict: 'comment', body: 'Nearly there.', comments: [{ path: file, line: 1, body: 'Say which version.' }] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.comments).toEqual([{ path: file, line: 1, body: 'Say which version.', quoted: 'write a draft, keep open' }]);
    const msg = ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).find((m) => m.message_id === r.body.message_id);
    expect(msg.body).toContain(`${file}:1\n> write a draft, keep open\nSay which version.`);
    expect(msg.body).toContain(t.task_id);
    expect(msg.mentions.map((m: any) => m.plate ?? m)).toContain(a.plate);
    // Its wake is about the task: the run works in the task's worktree.
    const w = await (async () => {
      const end = Date.now() + 20_000;
      for (;;) {
        const ws = (await s.api('GET', `/v1/rooms/${room}/wakes?message_id=${r.body.message_id}`)).body.wakes as any[];
        if (ws[0] && (ws[0].status === 'handled' || ws[0].status === 'failed')) return ws[0];
        if (Date.now() > end) throw new Error('the review wake did not end');
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    expect(w.task_id).toBe(t.task_id);
    expect(readRunnerLog(log).find((l) => l.event === 'start' && (l.wake as any).wake_id === w.wake_id)?.cwd).toBe(rec.worktree.path);
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`)).body.reviews.map((x: any) => x.verdict)).toEqual(['comment']);
    // A link the agent left in its worktree never quotes a file outside it into the room.
    const outside = join(dir, 'outside-secret.txt');
    writeFileSync(outside, 'the server user\'s private line\n');
    symlinkSync(outside, join(rec.worktree.path, 'leak.txt'));
    const leak = await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`, { verdict: 'comment', comments: [{ path: 'leak.txt', line: 1, body: 'what is this?' }, { path: '../../outside-secret.txt', line: 1, body: 'and this?' }] });
    expect(leak.status).toBe(201);
    expect(leak.body.comments.map((c: any) => c.quoted)).toEqual([null, null]);
    const leaked = ((await s.api('GET', `/v1/rooms/${room}/messages`)).body.messages as any[]).find((m) => m.message_id === leak.body.message_id);
    expect(leaked.body).not.toContain('private line');
    // Bad input of each kind: a clear 400, nothing stored.
    for (const bad of [{}, { verdict: 'lgtm' }, { verdict: 'comment' }, { verdict: 'comment', comments: [{ path: 'a\nb', line: 1, body: 'x' }] }, { verdict: 'comment', comments: [{ path: file, line: 0, body: 'x' }] }]) {
      const b = await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`, bad);
      expect(b.status, JSON.stringify(bad)).toBe(400);
      expect(b.body.error.error_id).toBeTruthy();
    }
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${t.task_id}/reviews`)).body.reviews).toHaveLength(2);
    await s.api('POST', `/v1/rooms/${room}/tasks/${t.task_id}/cancel`);
  });

  it('changes requested on a done task: a follow-up task on the same branch and worktree, with the comments as its detail', async () => {
    const { room, a } = await repoRoom('follow up');
    const log = join(dir, `${a.plate}.log`);
    const rec = await doneTask(room, a.plate, 'write the first cut');
    const r = await s.api('POST', `/v1/rooms/${room}/tasks/${rec.task_id}/reviews`, { verdict: 'request_changes', body: 'Add the date.' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const f = (await s.api('GET', `/v1/rooms/${room}/tasks/${r.body.follow_up_task_id}`)).body;
    expect(f).toMatchObject({ follow_up_of: rec.task_id, assignee: a.plate, title: 'Follow-up: write the first cut' });
    expect(f.detail).toContain('Add the date.');
    expect(f.worktree).toEqual(rec.worktree);
    const first = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}`)).body;
    expect(first.worktree).toBeNull();
    expect(first.worktree_reason).toContain(`handed to its follow-up ${f.task_id}`);
    expect(first.allowed_actions).not.toContain('merge');
    // The follow-up's run works in the same worktree; once done, it is the one to merge.
    const end = Date.now() + 20_000;
    let fu = f;
    while (fu.status !== 'done' && Date.now() < end) {
      await new Promise((res) => setTimeout(res, 50));
      fu = (await s.api('GET', `/v1/rooms/${room}/tasks/${f.task_id}`)).body;
    }
    expect(fu.status).toBe('done');
    const runs = readRunnerLog(log).filter((l) => l.event === 'start' && (l.wake as any).task_id === f.task_id);
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.every((l) => l.cwd === rec.worktree.path)).toBe(true);
    expect(fu.allowed_actions).toContain('merge');
  });

  it('open tasks whose branches change the same file say so; reservations of others on changed paths show beside the diff', async () => {
    const { room, a } = await repoRoom('overlap');
    const b = await s.agent('overlap second');
    await s.join(room, b.plate);
    expect((await s.api('PUT', `/v1/agents/${b.plate}/runners/codex`, fixtureRunner(join(dir, `${b.plate}.log`)))).status).toBe(200);
    const t1 = await keptOpen(room, a.plate, 'write one side, keep open');
    const t2 = await keptOpen(room, b.plate, 'write the other side, keep open');
    for (const t of [t1, t2]) writeFileSync(join(t.worktree.path, 'README.md'), `# changed by ${t.task_id}\n`);
    // A third agent holds README.md exclusively.
    const c = await s.agent('overlap holder');
    await s.join(room, c.plate);
    const client = await s.connect(c.credential);
    await ok(client, 'reserve_paths', { room, paths: ['README.md'], exclusive: true, reason: 'rewriting the intro' });
    const ch1 = (await s.api('GET', `/v1/rooms/${room}/tasks/${t1.task_id}/changes`)).body;
    expect(ch1.uncommitted).toBe(true);
    expect(ch1.reservations).toEqual([expect.objectContaining({ path: 'README.md', pattern: 'README.md', plate: c.plate, exclusive: true })]);
    await s.api('GET', `/v1/rooms/${room}/tasks/${t2.task_id}/changes`);
    const r1 = (await s.api('GET', `/v1/rooms/${room}/tasks/${t1.task_id}`)).body;
    expect(r1.overlaps).toEqual([{ task_id: t2.task_id, title: t2.title, paths: ['README.md'] }]);
    const lanes = (await s.api('GET', `/v1/rooms/${room}/board`)).body.lanes as any[];
    const card = lanes.flatMap((l) => l.tasks).find((x: any) => x.task_id === t2.task_id);
    expect(card.overlaps).toEqual([{ task_id: t1.task_id, title: t1.title, paths: ['README.md'] }]);
    // Once one of them is cancelled, the other no longer overlaps.
    await s.api('POST', `/v1/rooms/${room}/tasks/${t2.task_id}/cancel`);
    expect((await s.api('GET', `/v1/rooms/${room}/tasks/${t1.task_id}`)).body.overlaps).toEqual([]);
    await s.api('POST', `/v1/rooms/${room}/tasks/${t1.task_id}/cancel`);
  });

  it('a workspace that is not a git repository: no changes, and the reason', async () => {
    const plain = join(dir, 'plain-review');
    mkdirSync(plain);
    const room = await s.room('plain review');
    expect((await s.api('PUT', `/v1/rooms/${room}/workspace`, { local_path: plain })).status).toBe(200);
    const a = await s.agent('plain review agent');
    await s.join(room, a.plate);
    expect((await s.api('PUT', `/v1/agents/${a.plate}/runners/codex`, fixtureRunner(join(dir, 'plain.log')))).status).toBe(200);
    const rec = await doneTask(room, a.plate, 'write plainly');
    const ch = (await s.api('GET', `/v1/rooms/${room}/tasks/${rec.task_id}/changes`)).body;
    expect(ch).toEqual({ files: [], reason: expect.stringMatching(/not the top of a git repository/) });
  });
});
