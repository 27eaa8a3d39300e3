import { spawn } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';

/**
 * The system `git`, as every git call of the server runs it (docs/worktrees.md "Git"): spawned
 * asynchronously with an argument array (never a shell), bounded in time and in output, with
 * no terminal prompt and no pager. Paths and names from users go after `--` or in a form git
 * cannot read as an option (an absolute path, `refs/heads/…`); callers see to that.
 */

/** The oldest git the worktree commands are checked with (`worktree add/remove/prune`, `-C`, `--porcelain=v1 -z`). */
export const GIT_MIN_VERSION = '2.25.0';
export const GIT_TIMEOUT_MS = 60_000;
/** Output kept per stream; a call that prints more is cut (and says so). */
export const GIT_OUTPUT_MAX = 4 * 1024 * 1024;

export interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The call ran past its time and was killed. */
  timedOut: boolean;
  /** stdout was longer than the bound: what is kept is its start. */
  truncated: boolean;
  /** git could not be started (ENOENT: not installed or not on PATH). */
  spawnError?: string;
}

export interface GitOptions {
  cwd: string;
  timeoutMs?: number;
  maxOutput?: number;
  /** Added to the environment (identity of a commit, for one). */
  env?: Record<string, string>;
}

/** The environment of every git call: no prompt for credentials, no pager, no editor, messages in English. */
function gitEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_ROOMS_') && !k.startsWith('GIT_')) env[k] = v;
  return { ...env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C', LANGUAGE: 'C', GIT_OPTIONAL_LOCKS: '0', ...extra };
}

class Bounded {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly max: number) {}
  push(b: Buffer): void {
    if (this.size >= this.max) {
      this.truncated = true;
      return;
    }
    const room = this.max - this.size;
    const part = b.length > room ? b.subarray(0, room) : b;
    if (part.length < b.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Runs `git ARGS` in `cwd`; never throws (a failure is in the result). `stopAtMax`: see runGitHead. */
export function runGit(args: readonly string[], opts: GitOptions & { stopAtMax?: boolean }): Promise<GitResult> {
  const max = opts.maxOutput ?? GIT_OUTPUT_MAX;
  const out = new Bounded(max);
  const err = new Bounded(64 * 1024);
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    let spawnError: string | undefined;
    const child = spawn('git', [...args], { cwd: opts.cwd, env: gitEnv(opts.env), shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? GIT_TIMEOUT_MS);
    timer.unref();
    child.stdout.on('data', (b: Buffer) => {
      out.push(b);
      if (opts.stopAtMax && out.truncated) {
        child.stdout.destroy();
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const settle = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code: opts.stopAtMax && out.truncated ? null : code, stdout: out.text(), stderr: err.text(), timedOut, truncated: out.truncated, ...(spawnError ? { spawnError } : {}) });
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code ?? 'spawn failed';
      settle(null);
    });
    child.once('close', (code) => settle(code));
  });
}

/** What a failed git call says, in one line a human can act on (git's own words, never its argv). */
export function gitFailure(what: string, r: GitResult): string {
  if (r.spawnError === 'ENOENT') return `${what}: git is not installed or not on the server's PATH`;
  if (r.spawnError) return `${what}: git could not be started (${r.spawnError})`;
  if (r.timedOut) return `${what}: git did not finish in time`;
  const said = r.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('hint:'))
    .join(' ')
    .slice(0, 600);
  return `${what}: ${said || `git exited with code ${r.code}`}`;
}

/** `git version 2.39.5` -> [2, 39, 5]. */
export function parseGitVersion(text: string): [number, number, number] | undefined {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

export function versionAtLeast(v: readonly number[], min: string): boolean {
  const want = min.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const a = v[i] ?? 0;
    const b = want[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

export interface GitCheck {
  ok: boolean;
  version: string | null;
  min_version: string;
  problem: string | null;
}

/** The server's git: found, and at least GIT_MIN_VERSION (doctor shows it). */
export async function checkGit(cwd: string): Promise<GitCheck> {
  const r = await runGit(['--version'], { cwd, timeoutMs: 10_000 });
  if (r.code !== 0) return { ok: false, version: null, min_version: GIT_MIN_VERSION, problem: gitFailure('git --version', r) };
  const v = parseGitVersion(r.stdout);
  const version = r.stdout.trim().replace(/^git version /, '');
  if (!v) return { ok: false, version, min_version: GIT_MIN_VERSION, problem: 'git printed a version this server cannot read' };
  if (!versionAtLeast(v, GIT_MIN_VERSION)) {
    return { ok: false, version, min_version: GIT_MIN_VERSION, problem: `git ${version} is older than ${GIT_MIN_VERSION}, the oldest the worktrees are checked with` };
  }
  return { ok: true, version, min_version: GIT_MIN_VERSION, problem: null };
}

/** The hooks folder git uses for a repository (core.hooksPath respected): where the reservations guard goes. */
export async function gitHooksDir(repo: string): Promise<string> {
  const r = await runGit(['rev-parse', '--git-path', 'hooks'], { cwd: repo, timeoutMs: 15_000 });
  if (r.code !== 0) throw new Error(`${repo} is not a git repository (the room workspace's local_path must be one)`);
  const out = r.stdout.trim();
  return isAbsolute(out) ? out : resolve(repo, out);
}

/**
 * Runs `git ARGS` like runGit, but for a reader that wants only the start of a long output (the
 * first megabytes of a diff): once stdout passes `maxOutput`, git is stopped instead of being
 * left to print the rest into a bound that drops it. The result then says `truncated`, with
 * `code` null; a stop for output is not a time-out. Never throws.
 */
export function runGitHead(args: readonly string[], opts: GitOptions & { maxOutput: number }): Promise<GitResult> {
  return runGit(args, { ...opts, stopAtMax: true });
}
