import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHANGES_MAX_DIFF_BYTES,
  CHANGES_MAX_FILES,
  NO_WORKTREE,
  NOT_A_GIT_REPOSITORY,
  PARSE_SLICE_LINES,
  WORKTREE_AND_BRANCH_GONE,
  WORKTREE_GONE,
  parseUnifiedDiff,
  taskChanges,
  type Changes,
  type ChangedFile,
  type TaskWorktree,
} from '../../src-main/core/worktrees/changes.js';
import { compareUrl, deleteBranch, mergeTaskBranch, pushBranch, type MergeOutcome } from '../../src-main/core/worktrees/merge.js';

/**
 * The git behind a task's review (docs/worktrees.md, decisions "Changes" and "Merge"), with the
 * system git on temp repositories: what a task's worktree changed against its merge base (committed,
 * uncommitted, untracked; renames, deletions, binary files, awkward names; the bounds), the merge
 * and squash of its branch into the base in the workspace folder, each refusal leaving that folder
 * exactly as it was, and the push with a token that git gets from an askpass script only.
 */
const run = promisify(execFile);
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.invalid',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.invalid',
  GIT_TERMINAL_PROMPT: '0',
};
const git = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd, env: gitEnv, maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
const gitFails = async (cwd: string, ...args: string[]) => run('git', args, { cwd, env: gitEnv }).then(() => false, () => true);

const BRANCH = 'rooms/x1y2z3w4-the-task';
const AUTHOR = { name: 'Grace Owner', email: 'grace@owners.agent-rooms.invalid' };
let dir: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agent-rooms-wtgit-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function write(root: string, rel: string, content: string | Buffer): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
}

const lines = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}`).join('\n') + '\n';

/** A workspace repository on `main` with `files`, and a task worktree on BRANCH made from it. */
async function fixture(files: Record<string, string>): Promise<{ repo: string; wt: TaskWorktree }> {
  const root = join(dir, `case-${++n}`);
  const repo = join(root, 'repo');
  mkdirSync(repo, { recursive: true });
  await git(repo, 'init', '-q', '-b', 'main');
  for (const [rel, content] of Object.entries(files)) write(repo, rel, content);
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'base');
  const base = await git(repo, 'rev-parse', 'HEAD');
  const path = join(root, 'wt');
  await git(repo, 'worktree', 'add', '-q', '-b', BRANCH, path, 'main');
  return { repo, wt: { path, branch: BRANCH, base_branch: 'main', base_commit: base } };
}

async function commitAll(cwd: string, message: string): Promise<string> {
  await git(cwd, 'add', '-A');
  await git(cwd, 'commit', '-q', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD');
}

function asChanges(c: Awaited<ReturnType<typeof taskChanges>>): Changes {
  expect('base' in c, `an answer with changes, not ${JSON.stringify(c)}`).toBe(true);
  return c as Changes;
}

const byPath = (c: Changes) => new Map<string, ChangedFile>(c.files.map((f) => [f.path, f]));

function tempEntries(prefix: string): string[] {
  return readdirSync(tmpdir()).filter((e) => e.startsWith(prefix));
}

describe('changes of a task', () => {
  it('lists committed, uncommitted and untracked work against the merge base, with renames, deletions, binary files and awkward names', async () => {
    const { repo, wt } = await fixture({
      'keep.txt': lines('line', 10),
      'gone.txt': lines('gone', 3),
      'old name.txt': lines('a fairly long line that stays the same', 10),
      'tracked.txt': 'one\ntwo\n',
      '.gitignore': '*.log\n',
    });
    const weird = 'we"ird\nname.txt';
    const moved = 'dossier é/nouveau nom.txt';
    write(wt.path, 'keep.txt', lines('line', 10).replace('line 5\n', 'line five\n'));
    rmSync(join(wt.path, 'gone.txt'));
    await git(wt.path, 'mv', 'old name.txt', 'nouveau.txt');
    mkdirSync(join(wt.path, 'dossier é'));
    await git(wt.path, 'mv', 'nouveau.txt', moved);
    write(wt.path, moved, lines('a fairly long line that stays the same', 10).replace('same 10\n', 'same, changed\n'));
    write(wt.path, 'img.bin', Buffer.from([0, 1, 2, 0, 255, 0, 10, 0]));
    write(wt.path, weird, 'odd\n');
    const head = await commitAll(wt.path, 'the task works');
    // The base moves on after the branch was made: that is not the task's change.
    write(repo, 'base-only.txt', 'landed on main later\n');
    await commitAll(repo, 'main moves on');
    // Left uncommitted by a run: a tracked change, an untracked file, an ignored one.
    write(wt.path, 'tracked.txt', 'one\nTWO\nthree\n');
    write(wt.path, 'notes/new file ✓.md', '# notes\n');
    write(wt.path, 'debug.log', 'ignored\n');
    const statusBefore = await git(wt.path, 'status', '--porcelain=v1', '-z', '--untracked-files=all');
    const tempBefore = tempEntries('agent-rooms-changes-');

    const c = asChanges(await taskChanges({ repo, worktree: wt }));

    expect(c.base).toEqual({ branch: 'main', commit: wt.base_commit });
    expect(c.head).toEqual({ branch: BRANCH, commit: head });
    expect(c.uncommitted).toBe(true);
    expect(c.truncated).toBe(false);
    const f = byPath(c);
    expect([...f.keys()].sort()).toEqual(['gone.txt', 'img.bin', 'keep.txt', moved, 'notes/new file ✓.md', 'tracked.txt', weird].sort());
    expect(f.get('keep.txt')).toMatchObject({ status: 'modified', additions: 1, deletions: 1, binary: false });
    const keepLines = f.get('keep.txt')!.hunks.flatMap((h) => h.lines);
    expect(keepLines.filter((l) => l.kind !== 'context')).toEqual([
      { kind: 'del', old: 5, text: 'line 5' },
      { kind: 'add', new: 5, text: 'line five' },
    ]);
    expect(keepLines.find((l) => l.text === 'line 6')).toEqual({ kind: 'context', old: 6, new: 6, text: 'line 6' });
    expect(f.get('keep.txt')!.hunks[0].header).toMatch(/^@@ -2,7 \+2,7 @@/);
    expect(f.get('gone.txt')).toMatchObject({ status: 'deleted', additions: 0, deletions: 3 });
    expect(f.get('gone.txt')!.hunks[0].lines.map((l) => l.kind)).toEqual(['del', 'del', 'del']);
    expect(f.get(moved)).toMatchObject({ status: 'renamed', old_path: 'old name.txt', additions: 1, deletions: 1 });
    expect(f.get(moved)!.hunks.flatMap((h) => h.lines).filter((l) => l.kind === 'add')).toEqual([{ kind: 'add', new: 10, text: 'a fairly long line that stays the same, changed' }]);
    expect(f.get('img.bin')).toMatchObject({ status: 'added', binary: true, additions: 0, deletions: 0, hunks: [] });
    expect(f.get(weird)).toMatchObject({ status: 'added', additions: 1, hunks: [{ header: '@@ -0,0 +1 @@', lines: [{ kind: 'add', new: 1, text: 'odd' }] }] });
    expect(f.get('tracked.txt')).toMatchObject({ status: 'modified', additions: 2, deletions: 1 });
    expect(f.get('notes/new file ✓.md')!.hunks[0].lines).toEqual([{ kind: 'add', new: 1, text: '# notes' }]);
    expect(c.totals).toEqual({ files: 7, additions: 1 + 1 + 1 + 2 + 1, deletions: 1 + 3 + 1 + 1 });

    // The worktree's own index and files are as they were, and the temporary index is gone.
    expect(await git(wt.path, 'status', '--porcelain=v1', '-z', '--untracked-files=all')).toBe(statusBefore);
    expect(await git(wt.path, 'diff', '--cached', '--name-only')).toBe('');
    expect(tempEntries('agent-rooms-changes-')).toEqual(tempBefore);
  });

  it('answers uncommitted: false when everything is committed, and a reason for no worktree or no repository', async () => {
    const { repo, wt } = await fixture({ 'a.txt': 'a\n' });
    write(wt.path, 'a.txt', 'b\n');
    await commitAll(wt.path, 'change');
    const c = asChanges(await taskChanges({ repo, worktree: wt }));
    expect(c.uncommitted).toBe(false);
    expect(c.files.map((f) => [f.path, f.status])).toEqual([['a.txt', 'modified']]);

    expect(await taskChanges({ repo, worktree: null })).toEqual({ files: [], reason: NO_WORKTREE });
    const plain = join(dir, `plain-${++n}`);
    mkdirSync(plain);
    expect(await taskChanges({ repo: plain, worktree: wt })).toEqual({ files: [], reason: NOT_A_GIT_REPOSITORY });
  });

  it('answers from the branch alone when the worktree folder is gone, and nothing when the branch is gone too', async () => {
    const { repo, wt } = await fixture({ 'a.txt': 'a\n' });
    write(wt.path, 'committed.txt', 'kept on the branch\n');
    const head = await commitAll(wt.path, 'committed work');
    write(wt.path, 'lost.txt', 'never committed\n');
    rmSync(wt.path, { recursive: true, force: true });

    const c = asChanges(await taskChanges({ repo, worktree: wt }));
    expect(c.reason).toBe(WORKTREE_GONE);
    expect(c.uncommitted).toBe(false);
    expect(c.head.commit).toBe(head);
    expect(c.files.map((f) => [f.path, f.status])).toEqual([['committed.txt', 'added']]);

    await git(repo, 'worktree', 'prune');
    await git(repo, 'branch', '-D', BRANCH);
    expect(await taskChanges({ repo, worktree: wt })).toEqual({ files: [], reason: WORKTREE_AND_BRANCH_GONE });
  });

  it('lists at most CHANGES_MAX_FILES files, and the totals count all of them', async () => {
    const { repo, wt } = await fixture({ 'a.txt': 'a\n' });
    for (let i = 0; i < 200; i++) write(wt.path, `f/${String(i).padStart(3, '0')}.txt`, `one ${i}\ntwo ${i}\n`);
    await commitAll(wt.path, 'many files');
    for (let i = 200; i < 310; i++) write(wt.path, `f/${String(i).padStart(3, '0')}.txt`, `one ${i}\ntwo ${i}\n`);

    const c = asChanges(await taskChanges({ repo, worktree: wt }));
    expect(c.files).toHaveLength(CHANGES_MAX_FILES);
    expect(c.truncated).toBe(true);
    expect(c.totals).toEqual({ files: 310, additions: 620, deletions: 0 });
    expect(c.files.every((f) => f.hunks.length === 1 && f.hunks[0].lines.length === 2)).toBe(true);
  });

  it('keeps at most CHANGES_MAX_DIFF_BYTES of diff text, and the counts of the whole change', async () => {
    const { repo, wt } = await fixture({ 'a.txt': 'a\n' });
    write(wt.path, 'a.txt', 'a\nsmall\n');
    const big = 30_000;
    write(wt.path, 'big.txt', lines('x'.repeat(90), big));
    await commitAll(wt.path, 'a big file');

    const c = asChanges(await taskChanges({ repo, worktree: wt }));
    expect(c.truncated).toBe(true);
    expect(c.totals).toEqual({ files: 2, additions: 1 + big, deletions: 0 });
    const f = byPath(c);
    expect(f.get('a.txt')!.hunks[0].lines.filter((l) => l.kind === 'add')).toEqual([{ kind: 'add', new: 2, text: 'small' }]);
    const bigLines = f.get('big.txt')!.hunks.flatMap((h) => h.lines);
    const text = c.files.flatMap((x) => x.hunks.flatMap((h) => h.lines)).reduce((s, l) => s + Buffer.byteLength(l.text) + 2, 0);
    expect(bigLines.length).toBeGreaterThan(1000);
    expect(bigLines.length).toBeLessThan(big);
    expect(text).toBeLessThanOrEqual(CHANGES_MAX_DIFF_BYTES);
    expect(bigLines[bigLines.length - 1]).toEqual({ kind: 'add', new: bigLines.length, text: `${'x'.repeat(90)} ${bigLines.length}` });
  });
});

describe('parseUnifiedDiff', () => {
  it('reads quoted names, lines that look like headers, blank context and "no newline" markers', async () => {
    const text = [
      'diff --git "a/t\\303\\251st\\tx" "b/t\\303\\251st\\tx"',
      'index 1..2 100644',
      '--- "a/t\\303\\251st\\tx"',
      '+++ "b/t\\303\\251st\\tx"',
      '@@ -1,3 +1,3 @@ fn',
      ' a',
      '',
      '---- not a header',
      '+++ not a header either',
      '\\ No newline at end of file',
      'diff --git a/with space b/with space',
      'old mode 100644',
      'new mode 100755',
      '',
    ].join('\n');
    const files = await parseUnifiedDiff(text);
    expect(files).toEqual([
      {
        old_path: 'tést\tx',
        new_path: 'tést\tx',
        binary: false,
        complete: true,
        hunks: [
          {
            header: '@@ -1,3 +1,3 @@ fn',
            lines: [
              { kind: 'context', old: 1, new: 1, text: 'a' },
              { kind: 'context', old: 2, new: 2, text: '' },
              { kind: 'del', old: 3, text: '--- not a header' },
              { kind: 'add', new: 3, text: '++ not a header either' },
            ],
          },
        ],
      },
      { old_path: 'with space', new_path: 'with space', binary: false, complete: true, hunks: [] },
    ]);
  });

  it('lets the event loop turn while it parses: at least once every PARSE_SLICE_LINES lines', async () => {
    const count = 10_000;
    const body: string[] = ['diff --git a/big.txt b/big.txt', '--- a/big.txt', '+++ b/big.txt', `@@ -1,${count} +1,${count} @@`];
    for (let i = 0; i < count; i++) body.push(`-old line ${i} ${'o'.repeat(40)}`);
    for (let i = 0; i < count; i++) body.push(`+new line ${i} ${'n'.repeat(40)}`);
    const text = body.join('\n') + '\n';
    const lines = body.length;

    // Turns of the event loop counted, not timed: a busy machine stretches a turn but does not take one
    // away. A setImmediate chain runs once a turn while the parse is under way; the CPU time between two
    // turns is printed as a figure.
    const turnsDuring = async (sliceLines?: number) => {
      const cpu = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      let turns = 0;
      let longest = 0;
      let parsing = true;
      let last = cpu();
      const probe = () => {
        if (!parsing) return;
        turns++;
        const now = cpu();
        longest = Math.max(longest, now - last);
        last = now;
        setImmediate(probe);
      };
      setImmediate(probe);
      const t0 = cpu();
      const files = await parseUnifiedDiff(text, sliceLines === undefined ? {} : { sliceLines });
      parsing = false;
      return { turns, files, longestCpuMs: longest, cpuMs: cpu() - t0 };
    };

    const byDefault = await turnsDuring();
    console.log(
      `[figure] parseUnifiedDiff, ${lines} lines: the event loop turned ${byDefault.turns} times, at most ${byDefault.longestCpuMs.toFixed(1)} ms of CPU between two turns, ${byDefault.cpuMs.toFixed(1)} ms in all`,
    );
    expect(byDefault.turns).toBeGreaterThanOrEqual(Math.floor(lines / PARSE_SLICE_LINES));
    expect(byDefault.files[0].hunks[0].lines).toHaveLength(2 * count);
    expect(byDefault.files[0].hunks[0].lines[2 * count - 1]).toEqual({ kind: 'add', new: count, text: `new line ${count - 1} ${'n'.repeat(40)}` });
    // The turns follow the lines read: a smaller slice turns the loop as many times more often, and a
    // slice longer than the text (one synchronous parse) not once.
    expect((await turnsDuring(100)).turns).toBeGreaterThanOrEqual(Math.floor(lines / 100));
    const whole = await turnsDuring(lines + 1);
    expect(whole.turns).toBe(0);
    expect(whole.files).toEqual(byDefault.files);
  });
});

/** Everything a refusal must leave as it was: HEAD, its branch, the status, MERGE_HEAD, ORIG_HEAD and every file's bytes. */
async function snapshot(repo: string) {
  const files: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const e of await readdir(join(repo, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === '.git') continue;
      if (e.isDirectory()) await walk(r);
      else files[r] = createHash('sha256').update(await readFile(join(repo, r))).digest('hex');
    }
  };
  await walk('');
  const gitDir = join(repo, '.git');
  return {
    head: await git(repo, 'rev-parse', 'HEAD'),
    branch: await git(repo, 'symbolic-ref', '--quiet', 'HEAD').catch(() => 'detached'),
    refs: await git(repo, 'for-each-ref', '--format=%(refname) %(objectname)'),
    status: await git(repo, 'status', '--porcelain=v1', '-z', '--untracked-files=all'),
    mergeHead: existsSync(join(gitDir, 'MERGE_HEAD')),
    origHead: existsSync(join(gitDir, 'ORIG_HEAD')) ? readFileSync(join(gitDir, 'ORIG_HEAD'), 'utf8') : null,
    files,
  };
}

/** A workspace with a task branch that changes a.txt and adds c.txt, while main changed b.txt. */
async function mergeFixture() {
  const { repo, wt } = await fixture({ 'a.txt': lines('a', 5), 'b.txt': lines('b', 5) });
  write(wt.path, 'a.txt', lines('a', 5).replace('a 2\n', 'a two\n'));
  write(wt.path, 'c.txt', 'new on the branch\n');
  const tip = await commitAll(wt.path, 'task work');
  write(repo, 'b.txt', lines('b', 5).replace('b 4\n', 'b four\n'));
  const base = await commitAll(repo, 'main moves on');
  return { repo, wt, tip, base };
}

const mergeOf = (repo: string, strategy: 'merge' | 'squash' = 'merge') => mergeTaskBranch({ repo, branch: BRANCH, baseBranch: 'main', strategy, message: `Merge ${BRANCH}: the task`, author: AUTHOR });

function refusal(o: MergeOutcome) {
  expect(o.merged, JSON.stringify(o)).toBe(false);
  return o as Extract<MergeOutcome, { merged: false }>;
}

describe('merging a task branch into its base', () => {
  it('merges with a merge commit: parents the base tip then the branch, the workspace on it, the branch merged', async () => {
    const { repo, tip, base } = await mergeFixture();
    const o = await mergeOf(repo);
    expect(o.merged, JSON.stringify(o)).toBe(true);
    const commit = (o as { commit: string }).commit;
    expect((await git(repo, 'rev-list', '--parents', '-n', '1', commit)).split(' ')).toEqual([commit, base, tip]);
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(commit);
    expect(await git(repo, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toContain('a two');
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toContain('b four');
    expect(readFileSync(join(repo, 'c.txt'), 'utf8')).toBe('new on the branch\n');
    expect(await gitFails(repo, 'merge-base', '--is-ancestor', tip, 'main')).toBe(false);
    expect(await git(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s', commit)).toBe(`${AUTHOR.name} <${AUTHOR.email}>|${AUTHOR.name} <${AUTHOR.email}>|Merge ${BRANCH}: the task`);
    expect(existsSync(join(repo, '.git', 'MERGE_HEAD'))).toBe(false);

    const again = refusal(await mergeOf(repo));
    expect(again.reason).toBe('nothing_to_merge');
  });

  it('squashes: one parent, the merged files, and the branch deleted after its worktree goes', async () => {
    const { repo, wt, tip, base } = await mergeFixture();
    const o = await mergeOf(repo, 'squash');
    expect(o.merged, JSON.stringify(o)).toBe(true);
    const commit = (o as { commit: string }).commit;
    expect((await git(repo, 'rev-list', '--parents', '-n', '1', commit)).split(' ')).toEqual([commit, base]);
    expect(await git(repo, 'rev-parse', 'HEAD')).toBe(commit);
    expect(await git(repo, 'diff', '--name-status', base, commit)).toBe('M\ta.txt\nA\tc.txt');
    expect(await gitFails(repo, 'merge-base', '--is-ancestor', tip, 'main')).toBe(true);
    expect(await git(repo, 'status', '--porcelain')).toBe('');

    expect(refusal(await mergeOf(repo, 'squash')).reason).toBe('nothing_to_merge');
    await git(repo, 'worktree', 'remove', '--force', wt.path);
    await deleteBranch(repo, BRANCH);
    expect(await gitFails(repo, 'rev-parse', '--verify', `refs/heads/${BRANCH}`)).toBe(true);
    await deleteBranch(repo, BRANCH); // already gone: no failure
  });

  it('refuses a workspace that is not on the base branch, and leaves it exactly as it was', async () => {
    const { repo } = await mergeFixture();
    await git(repo, 'checkout', '-q', '-b', 'elsewhere');
    const before = await snapshot(repo);
    const o = refusal(await mergeOf(repo));
    expect(o.reason).toBe('not_on_base');
    expect(o.message).toContain('elsewhere');
    expect(await snapshot(repo)).toEqual(before);
  });

  it('refuses uncommitted changes to tracked files, with their paths, and leaves the workspace exactly as it was', async () => {
    const { repo } = await mergeFixture();
    write(repo, 'b.txt', 'edited by a person\n');
    write(repo, 'untracked is fine.txt', 'x\n');
    const before = await snapshot(repo);
    const o = refusal(await mergeOf(repo));
    expect(o.reason).toBe('dirty');
    expect(o.paths).toEqual(['b.txt']);
    expect(await snapshot(repo)).toEqual(before);
  });

  it('refuses a conflict, naming the conflicting paths in git\'s words, and leaves the workspace exactly as it was', async () => {
    const { repo, wt } = await mergeFixture();
    write(wt.path, 'b.txt', lines('b', 5).replace('b 1\n', 'b one\n'));
    await commitAll(wt.path, 'the branch changes b.txt too');
    write(repo, 'a.txt', lines('a', 5).replace('a 2\n', 'a deux\n'));
    rmSync(join(repo, 'b.txt'));
    await commitAll(repo, 'conflicting changes on main');
    const before = await snapshot(repo);
    const o = refusal(await mergeOf(repo));
    expect(o.reason).toBe('conflict');
    expect(o.paths.sort()).toEqual(['a.txt', 'b.txt']);
    expect(o.message).toContain('CONFLICT (content): Merge conflict in a.txt');
    // git's words, with the two sides named by their branches rather than by commit ids.
    expect(o.message).toContain(`b.txt deleted in main and modified in ${BRANCH}`);
    expect(o.message).not.toMatch(/[0-9a-f]{40}/);
    expect(await snapshot(repo)).toEqual(before);
  });

  it('refuses when an untracked file is where the merge puts one, with git\'s paths, and leaves the workspace exactly as it was', async () => {
    const { repo, wt } = await mergeFixture();
    const odd = 'nouveau "fichier" é.txt';
    write(wt.path, odd, 'from the branch\n');
    await commitAll(wt.path, 'one more file');
    write(repo, odd, 'a person\'s file, not committed\n');
    write(repo, 'c.txt', 'also in the way\n');
    const before = await snapshot(repo);
    const o = refusal(await mergeOf(repo));
    expect(o.reason).toBe('untracked_in_the_way');
    expect(o.paths.sort()).toEqual(['c.txt', odd].sort());
    expect(o.message).toContain('untracked working tree files would be overwritten by merge');
    expect(await snapshot(repo)).toEqual(before);
  });

  it('makes the merge again when a commit lands on the base while it is made', async () => {
    const { repo, tip } = await mergeFixture();
    const real = (await run('sh', ['-c', 'command -v git'])).stdout.trim();
    const bin = join(dir, `racing-git-${++n}`);
    const marker = join(bin, 'landed');
    mkdirSync(bin);
    // The first `git commit-tree` of the merge lets a person's commit land on main just before it.
    writeFileSync(
      join(bin, 'git'),
      `#!/bin/sh\nif [ "$1" = "commit-tree" ] && [ ! -e '${marker}' ]; then\n  : > '${marker}'\n  (cd '${repo}' && echo late > late.txt && "${real}" add late.txt && "${real}" -c user.name=P -c user.email=p@example.invalid commit -q -m 'landed meanwhile')\nfi\nexec "${real}" "$@"\n`,
    );
    chmodSync(join(bin, 'git'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    let o: MergeOutcome;
    try {
      o = await mergeOf(repo);
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(marker)).toBe(true);
    expect(o.merged, JSON.stringify(o)).toBe(true);
    const commit = (o as { commit: string }).commit;
    const landed = await git(repo, 'rev-parse', 'HEAD^1');
    expect(await git(repo, 'log', '-1', '--format=%s', landed)).toBe('landed meanwhile');
    expect((await git(repo, 'rev-list', '--parents', '-n', '1', commit)).split(' ')).toEqual([commit, landed, tip]);
    expect(readFileSync(join(repo, 'late.txt'), 'utf8')).toBe('late\n');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('answers git_too_old with a git older than 2.38, and touches nothing', async () => {
    const { repo } = await mergeFixture();
    const real = (await run('sh', ['-c', 'command -v git'])).stdout.trim();
    const bin = join(dir, `old-git-${++n}`);
    mkdirSync(bin);
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "git version 2.37.1"; exit 0; fi\nexec "${real}" "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const before = await snapshot(repo);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    let o: MergeOutcome;
    try {
      o = await mergeOf(repo);
    } finally {
      process.env.PATH = path;
    }
    expect(refusal(o).reason).toBe('git_too_old');
    expect(refusal(o).message).toContain('2.37.1');
    expect(await snapshot(repo)).toEqual(before);
  });
});

describe('pushing a task branch', () => {
  const TOKEN = 'ghp_SECRET-token-0123456789';

  it('pushes to a remote by name and by path with a token that shows nowhere, the askpass folder removed', async () => {
    const { repo, tip } = await mergeFixture();
    const bare = join(dir, `bare-${++n}.git`);
    await git(dir, 'init', '-q', '--bare', bare);
    await git(repo, 'remote', 'add', 'origin', bare);
    const tempBefore = tempEntries('agent-rooms-askpass-');

    const r = await pushBranch({ repo, remote: 'origin', branch: BRANCH, token: TOKEN });
    expect(r).toEqual({ remote: 'origin', branch: BRANCH });
    expect(await git(bare, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(tip);
    expect(JSON.stringify(r)).not.toContain(TOKEN);

    const other = join(dir, `bare-${++n}.git`);
    await git(dir, 'init', '-q', '--bare', other);
    expect(await pushBranch({ repo, remote: other, branch: BRANCH })).toEqual({ remote: other, branch: BRANCH });
    expect(await git(other, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(tip);

    const failed = await pushBranch({ repo, remote: 'origin', branch: 'rooms/no-such-branch', token: TOKEN }).then(() => null, (e: Error) => e);
    expect(failed?.message).toMatch(/pushing rooms\/no-such-branch to origin: .*src refspec/);
    expect(failed?.message).not.toContain(TOKEN);
    expect(tempEntries('agent-rooms-askpass-')).toEqual(tempBefore);
  });

  it('masks a token that is in the remote URL out of git\'s error', async () => {
    const { repo } = await mergeFixture();
    const failed = await pushBranch({ repo, remote: `http://x:${TOKEN}@127.0.0.1:9/o/r.git`, branch: BRANCH, token: TOKEN }).then(() => null, (e: Error) => e);
    expect(failed).not.toBeNull();
    expect(failed!.message).not.toContain(TOKEN);
    expect(failed!.message).toContain('***');
  });

  describe('over HTTP', () => {
    let server: Server;
    let port = 0;
    const seen: Array<{ auth: string; argvWithToken: string[] }> = [];

    /** The command lines of every process of the machine that hold the token (git's children among them, while they wait on us). */
    async function commandLinesWithToken(): Promise<string[]> {
      const found: string[] = [];
      for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
        const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (cmd.includes(TOKEN)) found.push(cmd.split('\0').join(' '));
      }
      return found;
    }

    beforeAll(async () => {
      server = createServer((req, res) => {
        const auth = req.headers.authorization;
        if (!auth) {
          res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="test"' }).end();
          return;
        }
        void commandLinesWithToken().then((argvWithToken) => {
          seen.push({ auth, argvWithToken });
          res.writeHead(403).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it('gives git the token through askpass only: in the Authorization header, in no process\'s argv, not in the error', async () => {
      const { repo } = await mergeFixture();
      const tempBefore = tempEntries('agent-rooms-askpass-');
      const failed = await pushBranch({ repo, remote: `http://127.0.0.1:${port}/o/r.git`, branch: BRANCH, token: TOKEN }).then(() => null, (e: Error) => e);
      expect(failed).not.toBeNull();
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0].auth).toBe(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
      expect(seen.flatMap((s) => s.argvWithToken)).toEqual([]);
      expect(failed!.message).not.toContain(TOKEN);
      expect(failed!.message).toContain('403');
      expect(tempEntries('agent-rooms-askpass-')).toEqual(tempBefore);
    });
  });
});

describe('compareUrl', () => {
  it.each([
    ['https://github.com/o/r.git', 'https://github.com/o/r/compare/main...rooms/ab-c'],
    ['https://github.com/o/r', 'https://github.com/o/r/compare/main...rooms/ab-c'],
    ['https://user@github.com/o/r.git/', 'https://github.com/o/r/compare/main...rooms/ab-c'],
    ['git@github.com:o/r.git', 'https://github.com/o/r/compare/main...rooms/ab-c'],
    ['ssh://git@github.com/o/r.git', 'https://github.com/o/r/compare/main...rooms/ab-c'],
    ['https://gitlab.com/group/sub/repo.git', 'https://gitlab.com/group/sub/repo/-/compare/main...rooms/ab-c'],
    ['git@gitlab.com:group/repo.git', 'https://gitlab.com/group/repo/-/compare/main...rooms/ab-c'],
    ['https://gitlab.example.org/team/repo.git', 'https://gitlab.example.org/team/repo/-/compare/main...rooms/ab-c'],
    ['https://bitbucket.org/o/r.git', undefined],
    ['/srv/git/r.git', undefined],
    ['../bare.git', undefined],
    ['https://github.com/o', undefined],
    ['https://github.com/o/r/extra', undefined],
  ])('%s', (url, want) => {
    expect(compareUrl(url, 'main', 'rooms/ab-c')).toBe(want);
  });

  it('encodes what a branch name may hold that a URL path may not', () => {
    expect(compareUrl('git@github.com:o/r.git', 'release/1.0', 'rooms/a#b%c')).toBe('https://github.com/o/r/compare/release/1.0...rooms/a%23b%25c');
  });

  it('a pushed branch gets the compare link of its remote', async () => {
    const { repo } = await mergeFixture();
    const bare = join(dir, `bare-${++n}.git`);
    await git(dir, 'init', '-q', '--bare', bare);
    // The push goes to the bare repository; the link is read from the remote's (rewritten) URL.
    await git(repo, 'remote', 'add', 'origin', 'git@github.com:o/r.git');
    await git(repo, 'config', 'remote.origin.pushurl', bare);
    const r = await pushBranch({ repo, remote: 'origin', branch: BRANCH, base: 'main' });
    expect(r).toEqual({ remote: 'origin', branch: BRANCH, compare_url: `https://github.com/o/r/compare/main...${BRANCH}` });
    expect(statSync(bare).isDirectory()).toBe(true);
    expect(await git(bare, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(await git(repo, 'rev-parse', `refs/heads/${BRANCH}`));
  });
});
