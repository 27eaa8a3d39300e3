import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitFailure, parseGitVersion, runGit, versionAtLeast, type GitResult } from './git.js';
import { isDir, isRepositoryTop, serially, WorktreeError } from './service.js';
import type { MergeRequest } from '../core.js';
import { maskUrlUserinfo } from '../util/secret-mask.js';
import type { z } from 'zod';
import type { pushResult } from '../../../shared/schemas/tasks.js';

/**
 * A task's branch lands in its base branch in the workspace folder, and goes to a remote
 * (docs/worktrees.md, decisions "Merge"). The merge is computed without touching the folder
 * (`git merge-tree --write-tree`, `git commit-tree`) and the folder is then moved to the new
 * commit by a fast-forward, which git refuses whole or does whole: on any refusal the folder is
 * exactly as it was (same HEAD, no MERGE_HEAD, same bytes in every file, ORIG_HEAD put back).
 */

export type MergeRefusal = 'not_on_base' | 'dirty' | 'conflict' | 'untracked_in_the_way' | 'git_too_old' | 'nothing_to_merge' | 'failed';

export type MergeOutcome = { merged: true; commit: string } | { merged: false; reason: MergeRefusal; message: string; paths: string[] };

export type { MergeRequest };

/** `git merge-tree --write-tree` came with 2.38. */
export const GIT_MERGE_MIN_VERSION = '2.38.0';
/** Times the merge is computed again when another commit landed on the base meanwhile. */
const BASE_MOVED_RETRIES = 2;


/** git's words, in a line or two: what it printed on stderr (or stdout), hints left out. */
function gitSaid(r: GitResult, fallback: string): string {
  const lines = `${r.stderr}\n${r.stdout}`
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'));
  return lines.slice(0, 2).join(' ').slice(0, 600) || fallback;
}

function refused(reason: MergeRefusal, message: string, paths: string[] = []): MergeOutcome {
  return { merged: false, reason, message, paths };
}

async function commitOf(repo: string, ref: string): Promise<string | null> {
  const r = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repo, timeoutMs: 15_000 });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The paths of `git status --porcelain=v1 -z`: `XY path\0`, with the source after it for a rename or copy. */
export function statusPaths(z: string): string[] {
  const t = z.split('\0');
  const out: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const rec = t[i];
    if (rec.length < 4) continue;
    out.push(rec.slice(3));
    if (rec[0] === 'R' || rec[0] === 'C' || rec[1] === 'R' || rec[1] === 'C') out.push(t[++i]);
  }
  return [...new Set(out.filter((p) => p !== undefined && p !== ''))];
}

/** Where the folder stands: the branch HEAD is on (null when detached) and the tracked files changed. */
async function workspaceState(repo: string): Promise<{ head: string | null; dirty: string[] } | { failed: string }> {
  const sym = await runGit(['symbolic-ref', '--quiet', 'HEAD'], { cwd: repo, timeoutMs: 15_000 });
  if (sym.spawnError || sym.timedOut) return { failed: gitFailure('reading the workspace branch', sym) };
  const st = await runGit(['status', '--porcelain=v1', '-z', '--untracked-files=no'], { cwd: repo, timeoutMs: 60_000 });
  if (st.code !== 0) return { failed: gitFailure('reading the workspace status', st) };
  return { head: sym.code === 0 ? sym.stdout.trim() : null, dirty: statusPaths(st.stdout) };
}

function refusalOfState(s: { head: string | null; dirty: string[] }, baseBranch: string): MergeOutcome | null {
  if (s.head !== `refs/heads/${baseBranch}`) {
    const on = s.head === null ? 'a detached HEAD' : `the branch ${s.head.replace(/^refs\/heads\//, '')}`;
    return refused('not_on_base', `the workspace folder is on ${on}, not on ${baseBranch}: check out ${baseBranch} there to merge into it`);
  }
  if (s.dirty.length) return refused('dirty', `the workspace folder has uncommitted changes to tracked files: commit or stash them first`, s.dirty);
  return null;
}

/**
 * `git merge-tree --write-tree --name-only -z` in `repo`: the merged tree, or the conflicting
 * paths and git's CONFLICT messages. Its output with -z: `<tree>\0`, then for a conflict each
 * conflicting path `\0`-ended, an empty field, and the messages as `<n>\0<path>…\0<type>\0<text>\0`.
 */
async function mergeTree(repo: string, base: string, tip: string): Promise<{ tree: string } | { conflict: string[]; message: string } | { failed: string }> {
  const r = await runGit(['merge-tree', '--write-tree', '--name-only', '-z', '--messages', base, tip], { cwd: repo, timeoutMs: 120_000 });
  const t = r.stdout.split('\0');
  if (r.code === 0 && /^[0-9a-f]{40,64}$/.test(t[0] ?? '')) return { tree: t[0] };
  if (r.code !== 1) return { failed: gitFailure('computing the merge', r) };
  const paths: string[] = [];
  let i = 1;
  for (; i < t.length && t[i] !== ''; i++) paths.push(t[i]);
  const messages: string[] = [];
  for (i++; i < t.length && t[i] !== ''; ) {
    const n = Number(t[i]);
    if (!Number.isInteger(n) || n < 0) break;
    const text = t[i + n + 2];
    if (text !== undefined) messages.push(text.trim());
    i += n + 3;
  }
  const conflicts = messages.filter((m) => m.startsWith('CONFLICT'));
  return { conflict: [...new Set(paths)], message: (conflicts.length ? conflicts : messages).slice(0, 3).join(' ') || 'the merge has conflicts' };
}

/**
 * Merges `branch` into `baseBranch` in the workspace folder: a merge commit (parents: the base's
 * tip, then the branch) or a squash commit (the base's tip only), made with `author` as author
 * and committer. Never throws: every refusal is an outcome, with git's words and the paths.
 */
export async function mergeTaskBranch(opts: MergeRequest): Promise<MergeOutcome> {
  return serially(opts.repo, () => mergeNow(opts));
}

async function mergeNow(opts: MergeRequest): Promise<MergeOutcome> {
  const { repo } = opts;
  const version = await runGit(['--version'], { cwd: tmpdir(), timeoutMs: 10_000 });
  const v = parseGitVersion(version.stdout);
  if (version.code !== 0 || !v) return refused('failed', gitFailure('git --version', version));
  if (!versionAtLeast(v, GIT_MERGE_MIN_VERSION)) {
    return refused('git_too_old', `git ${v.join('.')} cannot compute a merge outside the workspace folder: merging needs git ${GIT_MERGE_MIN_VERSION} or newer`);
  }
  if (!(await isRepositoryTop(repo))) return refused('failed', 'the workspace folder is not the top of a git repository');

  for (let attempt = 0; ; attempt++) {
    const state = await workspaceState(repo);
    if ('failed' in state) return refused('failed', state.failed);
    const refusal = refusalOfState(state, opts.baseBranch);
    if (refusal) return refusal;

    const base = await commitOf(repo, `refs/heads/${opts.baseBranch}`);
    if (!base) return refused('failed', `the base branch ${opts.baseBranch} has no commit`);
    const tip = await commitOf(repo, `refs/heads/${opts.branch}`);
    if (!tip) return refused('failed', `the task's branch ${opts.branch} is not in the workspace repository`);
    const contained = await runGit(['merge-base', '--is-ancestor', tip, base], { cwd: repo, timeoutMs: 60_000 });
    if (contained.code === 0) return refused('nothing_to_merge', `${opts.branch} has nothing that is not already on ${opts.baseBranch}`);

    const merged = await mergeTree(repo, base, tip);
    if ('failed' in merged) return refused('failed', merged.failed);
    // git names the two sides by what it was given: the commits, read once so that neither can move under it.
    if ('conflict' in merged) return refused('conflict', merged.message.split(base).join(opts.baseBranch).split(tip).join(opts.branch), merged.conflict);
    if (opts.strategy === 'squash') {
      const baseTree = (await runGit(['rev-parse', '--verify', `${base}^{tree}`], { cwd: repo, timeoutMs: 15_000 })).stdout.trim();
      if (baseTree === merged.tree) return refused('nothing_to_merge', `merging ${opts.branch} changes no file of ${opts.baseBranch}`);
    }

    const who = opts.author;
    const env = { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email };
    const parents = opts.strategy === 'merge' ? ['-p', base, '-p', tip] : ['-p', base];
    const made = await runGit(['commit-tree', ...parents, '-m', opts.message, merged.tree], { cwd: repo, env, timeoutMs: 60_000 });
    const commit = made.stdout.trim();
    if (made.code !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) return refused('failed', gitFailure('making the merge commit', made));

    // Another commit may have landed on the base (or the folder changed) while the merge was made.
    const again = await workspaceState(repo);
    if ('failed' in again) return refused('failed', again.failed);
    const late = refusalOfState(again, opts.baseBranch);
    if (late) return late;
    if ((await commitOf(repo, `refs/heads/${opts.baseBranch}`)) !== base) {
      if (attempt < BASE_MOVED_RETRIES) continue;
      return refused('failed', `${opts.baseBranch} kept moving while the merge was made: try again`);
    }
    return fastForward(repo, base, commit);
  }
}

/**
 * Moves the folder's branch and files to `commit`, whose first parent is the base's tip. git
 * checks every file before it writes any; a refusal (an untracked file where the merge puts
 * one) leaves the files as they were, and the ORIG_HEAD it wrote is put back.
 */
async function fastForward(repo: string, base: string, commit: string): Promise<MergeOutcome> {
  const origHead = await commitOf(repo, 'ORIG_HEAD');
  const ff = await runGit(['merge', '--ff-only', '--no-edit', '--no-autostash', '--no-verify-signatures', '--no-stat', commit], { cwd: repo, timeoutMs: 120_000 });
  const head = await commitOf(repo, 'HEAD');
  if (head === commit) return { merged: true, commit };
  if (origHead) await runGit(['update-ref', '--no-deref', 'ORIG_HEAD', origHead], { cwd: repo, timeoutMs: 15_000 });
  else await runGit(['update-ref', '--no-deref', '-d', 'ORIG_HEAD'], { cwd: repo, timeoutMs: 15_000 });
  if (head !== base) return refused('failed', `the workspace folder moved to ${head ?? 'no commit'} while merging: ${gitSaid(ff, 'git did not say why')}`);
  const said = ff.stderr;
  if (/untracked working tree files? would be (overwritten|removed)/.test(said)) {
    return refused('untracked_in_the_way', firstLines(said), await namedPaths(repo, base, commit, said));
  }
  // A tracked file changed after the check above, just before the fast-forward.
  if (/local changes to the following files would be overwritten/.test(said)) {
    return refused('dirty', firstLines(said), await namedPaths(repo, base, commit, said));
  }
  return refused('failed', gitSaid(ff, `git merge exited with code ${ff.code}`));
}

/** git's message without its list of paths (one per line after a tab) and without hints. */
function firstLines(said: string): string {
  return said
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('\t') && !l.startsWith('hint:'))
    .slice(0, 2)
    .join(' ')
    .trim();
}

/**
 * The paths git named as in the way. It prints them raw, one per line after a tab: a name with a
 * newline in it would read as two, so the names are matched against the files the merge writes.
 */
async function namedPaths(repo: string, base: string, commit: string, said: string): Promise<string[]> {
  const listed = said
    .split('\n')
    .filter((l) => l.startsWith('\t'))
    .map((l) => l.slice(1));
  const d = await runGit(['diff', '--name-only', '-z', '--no-renames', base, commit, '--'], { cwd: repo, timeoutMs: 60_000 });
  const written = d.code === 0 ? d.stdout.split('\0').filter(Boolean) : [];
  const matched = written.filter((p) => said.includes(`\t${p}\n`));
  return matched.length ? matched : listed;
}

/** Deletes a local branch (`git branch -D`: a squashed branch is not an ancestor of its base). A branch that is not there is no failure. */
export async function deleteBranch(repo: string, branch: string): Promise<void> {
  if (!isDir(repo)) throw new WorktreeError(`the workspace folder ${repo} is not there`);
  await serially(repo, async () => {
    if (!(await commitOf(repo, `refs/heads/${branch}`))) return;
    const r = await runGit(['branch', '-D', '--', branch], { cwd: repo, timeoutMs: 15_000 });
    if (r.code !== 0) throw new WorktreeError(gitFailure(`deleting the branch ${branch}`, r));
  });
}

export interface PushRequest {
  repo: string;
  /** A remote's name (`origin`) or a URL. */
  remote: string;
  branch: string;
  /** The workspace's git token, for an HTTPS remote. */
  token?: string;
  /** The branch the compare link compares with; the workspace folder's current branch when not given. */
  base?: string;
}

/** Where the branch went, and a page to open a pull request from (shared/schemas/tasks.ts `pushResult`). */
export type PushResult = z.output<typeof pushResult>;

/** Masks the token (as given and URL-encoded) and any user:password of a URL in what git printed. */
export function maskCredentials(s: string, token?: string): string {
  let out = s;
  if (token) {
    for (const form of new Set([token, encodeURIComponent(token)])) out = out.split(form).join('***');
  }
  // A scan, not the regular expression it replaces: that one read 64 KiB of `a.a.…` for 21 s (docs/security.md "Third round").
  return maskUrlUserinfo(out);
}

/**
 * The askpass program git runs for a user name and a password (HTTPS). It prints the token from
 * its environment, never from the file: the token is on no disk and in no argv. The user name is
 * `oauth2` for GitLab and `x-access-token` elsewhere (GitHub's, accepted by most hosts for a token).
 */
const ASKPASS_SCRIPT = `#!/bin/sh
case "$1" in
  [Uu]sername*gitlab*) printf '%s\\n' oauth2 ;;
  [Uu]sername*) printf '%s\\n' x-access-token ;;
  *) printf '%s\\n' "$AGENT_ROOMS_GIT_TOKEN" ;;
esac
`;

/**
 * Pushes `refs/heads/<branch>` to the same name on `remote` (never forced). With a token, git
 * gets it from a one-use askpass script in a private temporary folder (removed after), with the
 * repository's credential helpers switched off for this call so that none stores the token.
 * Throws WorktreeError with git's words, the token masked.
 */
export async function pushBranch(opts: PushRequest): Promise<PushResult> {
  const { repo, remote, branch, token } = opts;
  const shownRemote = maskCredentials(remote, token);
  if (!remote || remote.startsWith('-')) throw new WorktreeError('the workspace remote is empty or reads as an option');
  if (!isDir(repo)) throw new WorktreeError(`the workspace folder ${repo} is not there`);
  // As git reads it: a remote of that name when the repository has one, else a URL or a path.
  const named = await runGit(['remote', 'get-url', '--', remote], { cwd: repo, timeoutMs: 15_000 });
  const url = named.code === 0 ? named.stdout.trim() : remote;
  let base = opts.base;
  if (!base) {
    const b = await runGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: repo, timeoutMs: 15_000 });
    base = b.code === 0 ? b.stdout.trim() : undefined;
  }

  const dir = token ? await mkdtemp(join(tmpdir(), 'agent-rooms-askpass-')) : undefined;
  try {
    const env: Record<string, string> = {};
    const config: string[] = [];
    if (dir && token) {
      await chmod(dir, 0o700);
      const script = join(dir, 'askpass.sh');
      await writeFile(script, ASKPASS_SCRIPT, { mode: 0o700 });
      env.GIT_ASKPASS = script;
      env.AGENT_ROOMS_GIT_TOKEN = token;
      config.push('-c', 'credential.helper=');
    }
    const r = await serially(repo, () =>
      runGit([...config, 'push', '--no-verify', '--', remote, `refs/heads/${branch}:refs/heads/${branch}`], { cwd: repo, env, timeoutMs: 120_000 }),
    );
    if (r.code !== 0) throw new WorktreeError(maskCredentials(gitFailure(`pushing ${branch} to ${shownRemote}`, r), token));
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
  const compare = base ? compareUrl(url, base, branch) : undefined;
  return { remote: shownRemote, branch, ...(compare ? { compare_url: compare } : {}) };
}

/** A ref name in a URL path: each segment encoded, the slashes kept. */
function refInPath(ref: string): string {
  return ref.split('/').map(encodeURIComponent).join('/');
}

/**
 * The page that compares `branch` with `base` on GitHub (`https://github.com/o/r/compare/base...branch`)
 * or GitLab (`https://gitlab.com/group/…/repo/-/compare/base...branch`, also a host named `gitlab.…`),
 * from an https, ssh or scp-like (`git@github.com:o/r.git`) remote URL. undefined for any other host
 * or a path.
 */
export function compareUrl(remoteUrl: string, base: string, branch: string): string | undefined {
  const u = remoteUrl.trim();
  let host: string | undefined;
  let path: string | undefined;
  const full = /^(?:https?|ssh|git\+ssh|ssh\+git|git):\/\/(?:[^@/]+@)?([^/:]+)(?::\d*)?\/(.+)$/i.exec(u);
  const scp = /^(?:[^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(u);
  if (full) [host, path] = [full[1], full[2]];
  else if (scp && !u.startsWith('/')) [host, path] = [scp[1], scp[2]];
  if (!host || !path) return undefined;
  host = host.toLowerCase();
  const segments = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (segments.length < 2 || segments.some((s) => !/^[A-Za-z0-9_.-]+$/.test(s) || s === '.' || s === '..')) return undefined;
  const range = `${refInPath(base)}...${refInPath(branch)}`;
  if (host === 'github.com' || host === 'www.github.com' || host === 'ssh.github.com') {
    if (segments.length !== 2) return undefined;
    return `https://github.com/${segments[0]}/${segments[1]}/compare/${range}`;
  }
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return `https://${host}/${segments.join('/')}/-/compare/${range}`;
  return undefined;
}
