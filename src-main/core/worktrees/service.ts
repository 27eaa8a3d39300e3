import { existsSync, mkdirSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { runGit, gitFailure, type GitResult } from './git.js';
import { branchNameFor, safeSegment } from './names.js';
import type { PreparedWorktree, WorktreeInfo, WorktreeRequest } from '../core.js';

/**
 * A task's git worktree (docs/worktrees.md): made from the recorded base the first time a run
 * works on the task, recreated from its branch when its folder was deleted, committed when a run
 * leaves changes, removed when the task is merged, cancelled or archived. Every call is
 * asynchronous (runGit); calls that change one repository run one after another.
 */

/** A git step failed: git's own words, for the wake's reason or the request's error. */
export class WorktreeError extends Error {}

export type PrepareRequest = WorktreeRequest;
export type Prepared = PreparedWorktree;

export const NOT_A_REPOSITORY = "the workspace folder is not the top of a git repository: runs work in the folder itself";

/**
 * One chain of changes per repository (by its real path): making and removing worktrees, merges
 * and pushes never race on its refs, and the base branch's tip a merge read is still the tip it moves.
 */
const chains = new Map<string, Promise<unknown>>();
export function serially<T>(repo: string, step: () => Promise<T>): Promise<T> {
  const key = real(repo);
  const next = (chains.get(key) ?? Promise.resolve()).then(step, step);
  const tail = next.catch(() => undefined);
  chains.set(key, tail);
  void tail.then(() => {
    if (chains.get(key) === tail) chains.delete(key);
  });
  return next;
}

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** Whether `child` is `parent` or inside it. */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The folder of a task's worktree; ids that are not the server's own are refused. */
export function worktreePathFor(worktreesDir: string, roomId: string, taskId: string): string {
  const room = safeSegment(roomId);
  const task = safeSegment(taskId);
  if (!room || !task) throw new WorktreeError('the room or task id cannot name a folder');
  return join(worktreesDir, room, task);
}

async function git(repo: string, args: string[], what: string, timeoutMs?: number): Promise<GitResult> {
  const r = await runGit(args, { cwd: repo, timeoutMs });
  if (r.code !== 0) throw new WorktreeError(gitFailure(what, r));
  return r;
}

/** Whether `folder` is the top of a git repository's working tree (not a bare one, not a sub-folder). */
export async function isRepositoryTop(folder: string): Promise<boolean> {
  if (!isDir(folder)) return false;
  const r = await runGit(['rev-parse', '--show-toplevel'], { cwd: folder, timeoutMs: 15_000 });
  if (r.code !== 0) return false;
  return real(r.stdout.trim()) === real(folder);
}

async function refExists(repo: string, ref: string): Promise<boolean> {
  const r = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repo, timeoutMs: 15_000 });
  return r.code === 0;
}

async function commitOf(repo: string, ref: string): Promise<string> {
  return (await git(repo, ['rev-parse', '--verify', `${ref}^{commit}`], `reading ${ref}`)).stdout.trim();
}

/** The repository's current branch; a detached HEAD has none. */
async function currentBranch(repo: string): Promise<string> {
  const r = await runGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: repo, timeoutMs: 15_000 });
  const name = r.stdout.trim();
  if (r.code !== 0 || !name) {
    throw new WorktreeError("the workspace repository is on a detached HEAD: set the workspace's branch (repo_branch) to the base for tasks");
  }
  return name;
}

/** A worktree that is there: the folder exists and git knows it as one of the repository's worktrees. */
function looksLikeWorktree(path: string): boolean {
  return isDir(path) && existsSync(join(path, '.git'));
}

/** A folder where the worktree goes that holds something else is never deleted: someone's files may be in it. */
function inTheWay(path: string): void {
  let entries: string[] = [];
  try {
    entries = readdirSync(path);
  } catch {
    return;
  }
  if (entries.length) throw new WorktreeError(`the folder ${path} is in the way: it holds files but is not this task's worktree; move it away and the next run makes the worktree`);
}

/** Leaves nothing half made after a failed `worktree add`: the folder, git's record of it, a branch this call made. */
async function undoAdd(repo: string, path: string, branch: string | undefined): Promise<void> {
  await rm(path, { recursive: true, force: true });
  await runGit(['worktree', 'prune'], { cwd: repo, timeoutMs: 15_000 });
  if (branch) await runGit(['branch', '-D', branch], { cwd: repo, timeoutMs: 15_000 });
}

/**
 * The task's worktree for a run: the one recorded (recreated from its branch when its folder is
 * gone), or a new one on `rooms/<task-short>-<slug>` from the base. A workspace that is not a git
 * repository has none (the reason says so). Throws WorktreeError with git's message when git
 * fails (a missing base branch, a locked repository), having removed whatever it began.
 */
export async function prepareWorktree(req: PrepareRequest): Promise<Prepared> {
  if (!(await isRepositoryTop(req.repo))) return { worktree: null, reason: NOT_A_REPOSITORY };
  const repo = real(req.repo);
  const path = worktreePathFor(req.worktreesDir, req.roomId, req.taskId);
  if (isInside(repo, path)) throw new WorktreeError('the worktrees folder is inside the workspace repository; choose another with --worktrees');
  return serially(repo, async () => {
    if (req.existing && looksLikeWorktree(req.existing.path)) return { worktree: req.existing, made: 'existing' as const };
    mkdirSync(join(req.worktreesDir, req.roomId), { recursive: true, mode: 0o700 });
    if (req.existing) {
      // Its folder was deleted: git's record of it goes, and the branch is checked out again.
      const wt = { ...req.existing, path };
      await runGit(['worktree', 'prune'], { cwd: repo, timeoutMs: 15_000 });
      inTheWay(path);
      const hasBranch = await refExists(repo, `refs/heads/${wt.branch}`);
      const args = hasBranch ? ['worktree', 'add', '--', path, wt.branch] : ['worktree', 'add', '-b', wt.branch, '--', path, wt.base_commit];
      try {
        await git(repo, args, 'recreating the task worktree', 120_000);
      } catch (err) {
        await undoAdd(repo, path, hasBranch ? undefined : wt.branch);
        throw err;
      }
      return { worktree: wt, made: 'recreated' as const };
    }
    const baseBranch = req.baseBranch ?? (await currentBranch(repo));
    if (!(await refExists(repo, `refs/heads/${baseBranch}`))) {
      throw new WorktreeError(`the base branch "${baseBranch}" does not exist in the workspace repository`);
    }
    const branch = branchNameFor(req.taskId, req.title);
    const baseCommit = await commitOf(repo, `refs/heads/${baseBranch}`);
    inTheWay(path);
    await runGit(['worktree', 'prune'], { cwd: repo, timeoutMs: 15_000 });
    const reuse = await refExists(repo, `refs/heads/${branch}`);
    const args = reuse ? ['worktree', 'add', '--', path, branch] : ['worktree', 'add', '-b', branch, '--', path, baseCommit];
    try {
      await git(repo, args, 'creating the task worktree', 120_000);
    } catch (err) {
      await undoAdd(repo, path, reuse ? undefined : branch);
      throw err;
    }
    return { worktree: { path, branch, base_branch: baseBranch, base_commit: baseCommit }, made: 'new' as const };
  });
}

export interface CommitIdentity {
  name: string;
  email: string;
  message: string;
}

/**
 * Commits whatever a run left uncommitted in the worktree on its branch (docs/worktrees.md
 * "Nothing lost between runs"): every change git does not ignore, with the agent as author and
 * committer. The repository's commit hooks do not run: they check a person's commits (the
 * reservations guard among them), and this commit only keeps the work that is already there.
 * Returns the new commit, or null when nothing was left.
 */
export async function commitLeftovers(wt: WorktreeInfo, who: CommitIdentity): Promise<string | null> {
  if (!looksLikeWorktree(wt.path)) return null;
  const status = await git(wt.path, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], 'reading the worktree status');
  if (!status.stdout) return null;
  await git(wt.path, ['add', '--all', '--', '.'], 'staging the run\'s changes');
  const env = { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email };
  const r = await runGit(['commit', '--no-verify', '--quiet', '-m', who.message], { cwd: wt.path, env, timeoutMs: 60_000 });
  if (r.code !== 0) {
    // Nothing staged after all (only ignored or already committed changes) is not a failure.
    const again = await runGit(['diff', '--cached', '--quiet'], { cwd: wt.path, timeoutMs: 15_000 });
    if (again.code === 0) return null;
    throw new WorktreeError(gitFailure('committing the run\'s changes', r));
  }
  return (await git(wt.path, ['rev-parse', 'HEAD'], 'reading the new commit')).stdout.trim();
}

/**
 * Removes a task's worktree (the folder and git's record of it); the branch stays unless asked.
 * A folder that is already gone is only pruned from git's records.
 */
export async function removeWorktree(repo: string, wt: WorktreeInfo, opts: { deleteBranch?: boolean } = {}): Promise<void> {
  const top = isDir(repo) ? real(repo) : undefined;
  const step = async () => {
    if (top) {
      const r = await runGit(['worktree', 'remove', '--force', '--force', '--', wt.path], { cwd: top, timeoutMs: 60_000 });
      if (r.code !== 0 && isDir(wt.path)) await rm(wt.path, { recursive: true, force: true });
      await runGit(['worktree', 'prune'], { cwd: top, timeoutMs: 15_000 });
      if (opts.deleteBranch) await runGit(['branch', '-D', wt.branch], { cwd: top, timeoutMs: 15_000 });
    } else if (isDir(wt.path)) {
      await rm(wt.path, { recursive: true, force: true });
    }
  };
  await (top ? serially(top, step) : step());
}

/** Every task folder under the worktrees folder: `<dir>/<room>/<task>` (doctor compares them with the tasks). */
export function worktreeFolders(worktreesDir: string): Array<{ room: string; task_id: string; path: string }> {
  const out: Array<{ room: string; task_id: string; path: string }> = [];
  let rooms: string[] = [];
  try {
    rooms = readdirSync(worktreesDir);
  } catch {
    return out;
  }
  for (const room of rooms.slice(0, 10_000)) {
    const dir = join(worktreesDir, room);
    if (!isDir(dir)) continue;
    let tasks: string[] = [];
    try {
      tasks = readdirSync(dir);
    } catch {
      continue;
    }
    for (const task of tasks.slice(0, 10_000)) if (isDir(join(dir, task))) out.push({ room, task_id: task, path: `${dir}${sep}${task}` });
  }
  return out;
}
