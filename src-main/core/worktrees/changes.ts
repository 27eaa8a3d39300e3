import { existsSync, statSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gitFailure, runGit, runGitHead, type GitResult } from './git.js';
import { WorktreeError } from './service.js';
import type { z } from 'zod';
import type { changedFile, changedLine, taskChanges as taskChangesSchema, worktreeRecord } from '../../../shared/schemas/tasks.js';

/**
 * What a task's work changed (docs/worktrees.md, decisions "Changes"): the task's branch and
 * whatever its worktree holds uncommitted, against the merge base of the branch with its base
 * branch, as files with counts and unified-diff hunks. Bounded (CHANGES_MAX_FILES files and
 * CHANGES_MAX_DIFF_BYTES of diff text; the totals always count everything) and computed off the
 * event loop: git runs as a child process, and the diff text is parsed in slices.
 */

/** The records are shared/schemas/tasks.ts's (GET /v1/rooms/:id/tasks/:taskId/changes answers them). */
export type ChangedLine = z.output<typeof changedLine>;
export type ChangedFile = z.output<typeof changedFile>;
export type ChangedHunk = ChangedFile['hunks'][number];
/** What there is to diff (the route adds the `reservations` in the way beside it). */
export type Changes = Extract<z.output<typeof taskChangesSchema>, { base: unknown }>;
/** The task's worktree the changes are read from (shared/schemas/tasks.ts `worktreeRecord`). */
export type TaskWorktree = z.output<typeof worktreeRecord>;

export const CHANGES_MAX_FILES = 300;
export const CHANGES_MAX_DIFF_BYTES = 2 * 1024 * 1024;
/**
 * At most this many lines of patch are parsed and answered: 2 MB of short lines is a quarter of a
 * million line records, several times that as JSON, and writing that answer would hold the event
 * loop; 50,000 lines is five times the 10,000 a review reads at once.
 */
export const CHANGES_MAX_LINES = 50_000;
/** Lines parsed between two turns of the event loop. */
export const PARSE_SLICE_LINES = 2_000;
/** The list of changed paths (`--raw --numstat`) is cheap but has no natural bound: 32 MiB is ~300k files. */
const STAT_OUTPUT_MAX = 32 * 1024 * 1024;

export const NO_WORKTREE = 'this task has no worktree';
export const NOT_A_GIT_REPOSITORY = 'the workspace folder is not a git repository';
export const WORKTREE_GONE = "the task's worktree folder is gone; the next run makes it again from its branch";
export const WORKTREE_AND_BRANCH_GONE = "the task's worktree folder and its branch are both gone: there are no changes to show";

const yieldToLoop = () => new Promise<void>((done) => setImmediate(done));

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

async function gitOk(cwd: string, args: string[], what: string, env?: Record<string, string>, timeoutMs = 60_000): Promise<GitResult> {
  const r = await runGit(args, { cwd, env, timeoutMs });
  if (r.code !== 0) throw new WorktreeError(gitFailure(what, r));
  return r;
}

/**
 * The changes of a task's work. `worktree: null` and a workspace that is not a git repository
 * answer `{files: [], reason}`. A worktree whose folder is gone answers from its branch alone
 * (merge base..branch, `uncommitted: false`) with WORKTREE_GONE as the reason: what was committed
 * is still worth reviewing, and the next run recreates the folder from that branch; only when the
 * branch is gone too is the answer empty. A git failure (a locked repository, a broken object)
 * throws WorktreeError with git's words.
 */
export async function taskChanges(opts: { repo: string; worktree: TaskWorktree | null }): Promise<Changes | { files: []; reason: string }> {
  const wt = opts.worktree;
  if (!wt) return { files: [], reason: NO_WORKTREE };
  if (!isDir(opts.repo)) return { files: [], reason: NOT_A_GIT_REPOSITORY };
  const inRepo = await runGit(['rev-parse', '--git-dir'], { cwd: opts.repo, timeoutMs: 15_000 });
  if (inRepo.spawnError || inRepo.timedOut) throw new WorktreeError(gitFailure('reading the workspace repository', inRepo));
  if (inRepo.code !== 0) return { files: [], reason: NOT_A_GIT_REPOSITORY };

  // A folder without its `.git` is not run git in: git would climb to whatever repository holds it.
  if (!isDir(wt.path) || !existsSync(join(wt.path, '.git'))) {
    const branchRef = `refs/heads/${wt.branch}`;
    const tip = await runGit(['rev-parse', '--verify', '--quiet', `${branchRef}^{commit}`], { cwd: opts.repo, timeoutMs: 15_000 });
    if (tip.code !== 0) return { files: [], reason: WORKTREE_AND_BRANCH_GONE };
    const head = tip.stdout.trim();
    const base = await mergeBase(opts.repo, wt, head);
    if (!base) return { files: [], reason: noBase(wt) };
    const diff = await diffOf(opts.repo, base, head);
    return { base: { branch: wt.base_branch, commit: base }, head: { branch: wt.branch, commit: head }, uncommitted: false, ...diff, reason: WORKTREE_GONE };
  }

  const head = (await gitOk(wt.path, ['rev-parse', '--verify', 'HEAD^{commit}'], "reading the worktree's HEAD")).stdout.trim();
  const base = await mergeBase(wt.path, wt, head);
  if (!base) return { files: [], reason: noBase(wt) };
  const { tree, uncommitted } = await worktreeTree(wt.path, head);
  const diff = await diffOf(wt.path, base, tree);
  return { base: { branch: wt.base_branch, commit: base }, head: { branch: wt.branch, commit: head }, uncommitted, ...diff };
}

function noBase(wt: TaskWorktree): string {
  return `the base branch "${wt.base_branch}" shares no commit with the task's branch and the recorded base commit is not in the repository`;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** `git merge-base refs/heads/<base> <head>`; the recorded base commit when the base branch is gone or unrelated. */
async function mergeBase(cwd: string, wt: TaskWorktree, head: string): Promise<string | null> {
  const r = await runGit(['merge-base', `refs/heads/${wt.base_branch}`, head], { cwd, timeoutMs: 60_000 });
  if (r.code === 0 && r.stdout.trim()) return r.stdout.trim().split('\n')[0];
  if (r.spawnError || r.timedOut) throw new WorktreeError(gitFailure('finding the merge base', r));
  // Only a full object id from the task's record is given to git: it cannot be read as an option or a range.
  if (!OBJECT_ID.test(wt.base_commit)) return null;
  const known = await runGit(['rev-parse', '--verify', '--quiet', `${wt.base_commit}^{commit}`], { cwd, timeoutMs: 15_000 });
  return known.code === 0 ? known.stdout.trim() : null;
}

/**
 * The tree of everything in the worktree that git does not ignore (tracked changes and untracked
 * files), made in a temporary copy of the worktree's index: the worktree's own index, its files
 * and its refs are never touched (git only adds the blobs to the object store, as `git add` does).
 * The copy starts from the real index so that only changed files are read again.
 */
async function worktreeTree(cwd: string, head: string): Promise<{ tree: string; uncommitted: boolean }> {
  const where = await gitOk(cwd, ['rev-parse', '--git-path', 'index'], "finding the worktree's index");
  const realIndex = resolve(cwd, where.stdout.trim());
  const dir = await mkdtemp(join(tmpdir(), 'agent-rooms-changes-'));
  try {
    const index = join(dir, 'index');
    try {
      await copyFile(realIndex, index);
    } catch {
      // No index yet: git starts an empty one, and every file is read.
    }
    const env = { GIT_INDEX_FILE: index };
    await gitOk(cwd, ['add', '--all', '--', '.'], "reading the worktree's uncommitted changes", env, 120_000);
    const tree = (await gitOk(cwd, ['write-tree'], "reading the worktree's uncommitted changes", env)).stdout.trim();
    const headTree = (await gitOk(cwd, ['rev-parse', '--verify', `${head}^{tree}`], "reading the worktree's HEAD")).stdout.trim();
    return { tree, uncommitted: tree !== headTree };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The same diff options for the list of paths and for the patch, so that both describe the same
 * pairs of files: renames found (never copies, whatever `diff.renames` says), no colour, no
 * external diff or textconv program, the `a/` `b/` prefixes whatever `diff.noprefix` says.
 */
const DIFF_CONFIG = ['-c', 'diff.renames=true', '-c', 'core.quotePath=false'];
const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '--find-renames'];

interface StatEntry {
  path: string;
  old_path?: string;
  status: ChangedFile['status'];
  additions: number;
  deletions: number;
  binary: boolean;
}

async function diffOf(cwd: string, from: string, to: string): Promise<Pick<Changes, 'files' | 'truncated' | 'totals'>> {
  // The list of paths (with every file's counts) and the patch run at once: on a large change both
  // are git reading the same blobs, and the machine has more than one core. Git is stopped once it
  // has printed CHANGES_MAX_DIFF_BYTES of patch: the patch of a huge change is never made whole.
  const [stat, patch] = await Promise.all([
    runGit([...DIFF_CONFIG, 'diff', ...DIFF_OPTIONS, '--raw', '--numstat', '-z', from, to, '--'], { cwd, maxOutput: STAT_OUTPUT_MAX, timeoutMs: 60_000 }),
    runGitHead([...DIFF_CONFIG, 'diff', ...DIFF_OPTIONS, '--src-prefix=a/', '--dst-prefix=b/', from, to, '--'], { cwd, maxOutput: CHANGES_MAX_DIFF_BYTES, timeoutMs: 60_000 }),
  ]);
  if (stat.code !== 0 && !stat.truncated) throw new WorktreeError(gitFailure('listing the changed files', stat));
  const entries = await parseRawNumstat(stat.stdout);
  const totals = { files: entries.length, additions: 0, deletions: 0 };
  for (const e of entries) {
    totals.additions += e.additions;
    totals.deletions += e.deletions;
  }
  const shown = entries.slice(0, CHANGES_MAX_FILES);
  let truncated = stat.truncated || entries.length > CHANGES_MAX_FILES;
  const patches = new Map<string, ChangedHunk[]>();
  if (shown.some((e) => !e.binary)) {
    if (patch.code !== 0 && !patch.truncated) throw new WorktreeError(gitFailure('reading the diff', patch));
    const { text, cut } = firstLines(patch.stdout, CHANGES_MAX_LINES);
    if (patch.truncated || cut) truncated = true;
    const wanted = new Set(shown.map((e) => e.path));
    for (const p of await parseUnifiedDiff(text, { cut: patch.truncated || cut })) {
      const key = p.new_path ?? p.old_path;
      if (key === null || !wanted.has(key)) continue;
      // A type change (a file that became a symbolic link) is printed as a deletion and an addition of one path.
      const had = patches.get(key);
      patches.set(key, had ? [...had, ...p.hunks] : p.hunks);
    }
  }
  const files: ChangedFile[] = shown.map((e) => ({ ...e, hunks: e.binary ? [] : (patches.get(e.path) ?? []) }));
  return { files, truncated, totals };
}

/** The text up to its `max`th line break (a scan, no split), and whether anything was left out. */
function firstLines(text: string, max: number): { text: string; cut: boolean } {
  let at = -1;
  for (let i = 0; i < max; i++) {
    at = text.indexOf('\n', at + 1);
    if (at < 0) return { text, cut: false };
  }
  return at + 1 < text.length ? { text: text.slice(0, at + 1), cut: true } : { text, cut: false };
}

const STATUS: Record<string, ChangedFile['status']> = { A: 'added', C: 'added', D: 'deleted', R: 'renamed' };

/**
 * `git diff --raw --numstat -z`: first one raw record per pair (`:modes ids STATUS\0path\0`, two
 * paths for a rename or copy), then one numstat record per pair (`adds\tdels\tpath\0`, or
 * `adds\tdels\t\0from\0to\0`; `-` for both counts of a binary file). Paths are git's bytes,
 * NUL-ended, never quoted. A cut output gives the records it holds whole.
 */
export async function parseRawNumstat(text: string): Promise<StatEntry[]> {
  let pos = 0;
  let read = 0;
  /** The next NUL-ended field; undefined at the end (a field the cut left without its NUL is not read). */
  const field = (): string | undefined => {
    const end = text.indexOf('\0', pos);
    if (end < 0) return undefined;
    const f = text.slice(pos, end);
    pos = end + 1;
    return f;
  };
  const peek = () => text.charAt(pos);
  const raw: Array<{ letter: string; from: string; to: string }> = [];
  while (peek() === ':') {
    const meta = field();
    if (meta === undefined) break;
    const letter = meta.slice(meta.lastIndexOf(' ') + 1).charAt(0);
    const from = field();
    const to = letter === 'R' || letter === 'C' ? field() : from;
    if (from === undefined || to === undefined) break;
    raw.push({ letter, from, to });
    if (++read % (PARSE_SLICE_LINES * 5) === 0) await yieldToLoop();
  }
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (let rec = field(); rec !== undefined && rec !== ''; rec = field()) {
    const tab1 = rec.indexOf('\t');
    const tab2 = rec.indexOf('\t', tab1 + 1);
    if (tab1 < 0 || tab2 < 0) break;
    const adds = rec.slice(0, tab1);
    const dels = rec.slice(tab1 + 1, tab2);
    let path: string | undefined = rec.slice(tab2 + 1);
    if (path === '') {
      field();
      path = field();
      if (path === undefined) break;
    }
    const binary = adds === '-' || dels === '-';
    counts.set(path, { additions: binary ? 0 : Number(adds) || 0, deletions: binary ? 0 : Number(dels) || 0, binary });
    if (++read % (PARSE_SLICE_LINES * 5) === 0) await yieldToLoop();
  }
  return raw.map((r) => {
    const c = counts.get(r.to) ?? { additions: 0, deletions: 0, binary: false };
    const status = STATUS[r.letter] ?? 'modified';
    return { path: r.to, ...(r.letter === 'R' || r.letter === 'C' ? { old_path: r.from } : {}), status, ...c };
  });
}

/** One file's part of a unified diff, as parseUnifiedDiff reads it. */
export interface FilePatch {
  /** null for an added file. */
  old_path: string | null;
  /** null for a deleted file. */
  new_path: string | null;
  binary: boolean;
  /** The last one may be short of what its header says when the text stops in it (then `complete` is false). */
  hunks: ChangedHunk[];
  /** false when the text was cut in this file's part (some of its hunks may be missing). */
  complete: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Parses `git diff` output (with the `a/` and `b/` prefixes) into files and hunks with the line
 * numbers of each side. Pure: it reads only `text`. Hunk lines are counted from the hunk header,
 * so a changed line that looks like a header (`--- x`, `diff --git`) is read as a line. Names
 * come from `rename from/to`, `---`/`+++` and, for a file without them (binary, mode change),
 * the `diff --git` line; C-quoted names are unquoted. `cut` says the text was stopped short:
 * its last, partial line is not read, and the last file keeps what was read, marked incomplete. Every
 * `sliceLines` lines it lets the event loop turn, so a 2 MB diff never holds it for long.
 */
export async function parseUnifiedDiff(text: string, opts: { cut?: boolean; sliceLines?: number } = {}): Promise<FilePatch[]> {
  const slice = Math.max(1, opts.sliceLines ?? PARSE_SLICE_LINES);
  const files: FilePatch[] = [];
  let file: (FilePatch & { added: boolean; deleted: boolean }) | null = null;
  let hunk: ChangedHunk | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  let pos = 0;
  let count = 0;
  const finishFile = () => {
    if (!file) return;
    if (hunk) {
      file.hunks.push(hunk);
      file.complete = false;
    }
    if (file.added) file.old_path = null;
    if (file.deleted) file.new_path = null;
    const { added: _a, deleted: _d, ...done } = file;
    files.push(done);
    file = null;
    hunk = null;
  };
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) {
      if (opts.cut) break;
      nl = text.length;
    }
    const line = text.slice(pos, nl);
    pos = nl + 1;
    if (++count % slice === 0) await yieldToLoop();

    if (hunk && file) {
      const c = line.charAt(0);
      let read = true;
      if (c === '+' && newLeft > 0) {
        hunk.lines.push({ kind: 'add', new: newNo++, text: line.slice(1) });
        newLeft--;
      } else if (c === '-' && oldLeft > 0) {
        hunk.lines.push({ kind: 'del', old: oldNo++, text: line.slice(1) });
        oldLeft--;
      } else if ((c === ' ' || line === '') && oldLeft > 0 && newLeft > 0) {
        // An empty line is a blank context line under `diff.suppressBlankEmpty`.
        hunk.lines.push({ kind: 'context', old: oldNo++, new: newNo++, text: line.slice(1) });
        oldLeft--;
        newLeft--;
      } else if (c !== '\\') {
        // The hunk ended before its header said: what it held is kept, the file marked incomplete.
        file.hunks.push(hunk);
        file.complete = false;
        hunk = null;
        read = false;
      }
      if (hunk && oldLeft === 0 && newLeft === 0) {
        file.hunks.push(hunk);
        hunk = null;
      }
      if (read) continue;
    }

    if (line.startsWith('diff --git ')) {
      finishFile();
      const names = gitHeaderNames(line.slice('diff --git '.length));
      file = { old_path: names?.[0] ?? null, new_path: names?.[1] ?? null, binary: false, hunks: [], complete: true, added: false, deleted: false };
      continue;
    }
    if (!file) continue;
    const m = HUNK_HEADER.exec(line);
    if (m) {
      oldNo = Number(m[1]);
      oldLeft = m[2] === undefined ? 1 : Number(m[2]);
      newNo = Number(m[3]);
      newLeft = m[4] === undefined ? 1 : Number(m[4]);
      hunk = { header: line, lines: [] };
      if (oldLeft === 0 && newLeft === 0) {
        file.hunks.push(hunk);
        hunk = null;
      }
      continue;
    }
    if (file.hunks.length) continue;
    if (line.startsWith('--- ')) {
      const p = pathOfLine(line.slice(4), 'a/');
      if (p === null) file.added = true;
      else file.old_path = p;
    } else if (line.startsWith('+++ ')) {
      const p = pathOfLine(line.slice(4), 'b/');
      if (p === null) file.deleted = true;
      else file.new_path = p;
    } else if (line.startsWith('rename from ') || line.startsWith('copy from ')) {
      file.old_path = unquoted(line.slice(line.indexOf(' from ') + 6));
    } else if (line.startsWith('rename to ') || line.startsWith('copy to ')) {
      file.new_path = unquoted(line.slice(line.indexOf(' to ') + 4));
    } else if (line.startsWith('new file mode ')) {
      file.added = true;
    } else if (line.startsWith('deleted file mode ')) {
      file.deleted = true;
    } else if (line.startsWith('Binary files ') || line === 'GIT binary patch') {
      file.binary = true;
    }
  }
  if (opts.cut && file) (file as FilePatch).complete = false;
  finishFile();
  return files;
}

/** A name after `--- ` or `+++ `: `/dev/null`, a C-quoted name, or a plain one (with a tab after it when it holds a space). */
function pathOfLine(rest: string, prefix: string): string | null {
  if (rest === '/dev/null') return null;
  let p: string;
  if (rest.startsWith('"')) p = cUnquote(rest, 0)?.value ?? rest;
  else p = rest.endsWith('\t') ? rest.slice(0, -1) : rest;
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

function unquoted(s: string): string {
  return s.startsWith('"') ? (cUnquote(s, 0)?.value ?? s) : s;
}

/**
 * The two names of `diff --git a/X b/Y`. Quoted names are read exactly; two plain names are
 * split where the line is `a/X b/X` (the same name twice, as for every pair that is not a rename
 * or copy: git itself reads its header that way). undefined when the line cannot be split.
 */
function gitHeaderNames(rest: string): [string, string] | undefined {
  const strip = (p: string, prefix: string) => (p.startsWith(prefix) ? p.slice(prefix.length) : p);
  if (rest.startsWith('"')) {
    const a = cUnquote(rest, 0);
    if (!a || rest.charAt(a.end) !== ' ') return undefined;
    const tail = rest.slice(a.end + 1);
    return [strip(a.value, 'a/'), strip(unquoted(tail), 'b/')];
  }
  if (rest.endsWith('"')) {
    const at = rest.lastIndexOf(' "');
    if (at > 0) {
      const b = cUnquote(rest, at + 1);
      if (b && b.end === rest.length) return [strip(rest.slice(0, at), 'a/'), strip(b.value, 'b/')];
    }
  }
  if ((rest.length - 5) % 2 !== 0 || !rest.startsWith('a/')) return undefined;
  const len = (rest.length - 5) / 2;
  const name = rest.slice(2, 2 + len);
  return rest.slice(2 + len) === ` b/${name}` ? [name, name] : undefined;
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Reads the C-quoted string that starts at `s[start]` (`"`), as git writes names: named escapes and octal bytes, UTF-8 inside. */
function cUnquote(s: string, start: number): { value: string; end: number } | undefined {
  if (s.charAt(start) !== '"') return undefined;
  const bytes: number[] = [];
  let i = start + 1;
  while (i < s.length) {
    const ch = s.charAt(i);
    if (ch === '"') return { value: Buffer.from(bytes).toString('utf8'), end: i + 1 };
    if (ch === '\\') {
      const next = s.charAt(i + 1);
      if (/[0-7]/.test(next)) {
        bytes.push(parseInt(s.slice(i + 1, i + 4), 8) & 0xff);
        i += 4;
        continue;
      }
      const code = C_ESCAPES[next];
      if (code === undefined) return undefined;
      bytes.push(code);
      i += 2;
      continue;
    }
    const cp = s.codePointAt(i) ?? 0;
    const len = cp > 0xffff ? 2 : 1;
    for (const b of Buffer.from(s.slice(i, i + len), 'utf8')) bytes.push(b);
    i += len;
  }
  return undefined;
}
