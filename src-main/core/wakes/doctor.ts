import { spawn } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { sha256Hex } from '../util/ids.js';
import type { Core } from '../core.js';
import { agentHandle, credentialBySecret, isRevoked, type AgentRow } from '../agents/store.js';
import { mayRunCommands } from '../owners/store.js';
import { onPath } from '../util/which.js';
import { channelSessionOf } from './channel.js';
import { maskIssuedSecrets, runnersOf, type RunnerConfig } from './runners.js';
import { knownSecrets } from './secrets.js';
import { sandboxReport } from './sandbox.js';

/** How long `--version` of one runner command may take before the check says it hangs (Gemini CLI took over 20 s on a loaded machine). */
const VERSION_TIMEOUT_MS = 60_000;
const OUTPUT_KEEP = 400;

export type { RunnerCheck, WakeabilityReport } from '../../../shared/api-types.js';
import type { RunnerCheck, WakeabilityReport } from '../../../shared/api-types.js';

function runVersion(path: string, env: NodeJS.ProcessEnv, cwd: string | undefined): Promise<{ code: number | null; out: string; error?: string }> {
  return new Promise((resolve) => {
    let out = '';
    let settled = false;
    const child = spawn(path, ['--version'], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'], shell: false, windowsHide: true });
    const keep = (b: Buffer) => {
      if (out.length < 8192) out += b.toString('utf8');
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      if (!settled) {
        settled = true;
        resolve({ code: null, out, error: `--version did not end within ${VERSION_TIMEOUT_MS} ms` });
      }
    }, VERSION_TIMEOUT_MS);
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        resolve({ code: null, out, error: e.code ?? e.message });
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        resolve({ code, out });
      }
    });
  });
}

/** How long a `--version` that ran fine is taken as still true for the same command, file and environment. */
const VERSION_CACHE_MS = 10 * 60 * 1000;

/** `--version` results that ran fine, by what they depend on (see versionOf). */
export type VersionCache = Map<string, { at: number; v: { code: number | null; out: string } }>;

declare module '../core.js' {
  interface CoreServices {
    /** Runner `--version` results of this core (doctor). */
    versionCache: VersionCache;
  }
}

/**
 * `--version` of a runner command, run again only when something it depends on changed: the file
 * the command resolves to (its real path, inode, size, mode and modification time), the environment
 * and the working folder (docs/hosts.md "doctor"). Only a clean run is kept, so a failure is always
 * checked afresh. Some CLIs take seconds to print their version (Gemini CLI 5 s under load), and
 * `doctor` runs it for every runner each time.
 */
async function versionOf(core: Core, path: string, env: NodeJS.ProcessEnv, cwd: string | undefined): Promise<{ code: number | null; out: string; error?: string }> {
  let key: string | undefined;
  try {
    const real = realpathSync(path);
    const st = statSync(real);
    const envText = JSON.stringify(Object.keys(env).sort().map((k) => [k, env[k]]));
    key = sha256Hex(JSON.stringify([real, st.ino, st.size, st.mode, st.mtimeMs, cwd ?? null, envText]));
  } catch {
    key = undefined;
  }
  const cache = core.services.versionCache;
  const now = Date.now();
  const hit = key === undefined ? undefined : cache.get(key);
  if (hit && now - hit.at < VERSION_CACHE_MS) return hit.v;
  const v = await runVersion(path, env, cwd);
  if (key !== undefined && !v.error && v.code === 0) {
    if (cache.size >= 256) cache.clear();
    cache.set(key, { at: now, v: { code: v.code, out: v.out } });
  }
  return v;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function mask(s: string, secrets: string[]): string {
  let t = s;
  for (const v of secrets) if (v && v.length >= 4) t = t.split(v).join('***');
  return maskIssuedSecrets(t);
}

/** What the agent's `agent-rooms connect` line would be, for the fix of a runner problem. */
function connectFix(a: AgentRow, host: string): string {
  return `agent-rooms connect ${host} --agent ${a.plate}`;
}

/** Checks one runner from the server's own environment: the command resolves and `--version` runs. */
async function checkRunner(core: Core, a: AgentRow, r: RunnerConfig): Promise<RunnerCheck> {
  const base = { host: r.host, preset: r.preset, command: r.command };
  if (!mayRunCommands(core.db, a.owner_id)) {
    return { ...base, resolved: null, version: null, ok: false, problem: "the agent's owner may not run commands on this machine (the primary owner allows it on the People page)", fix: 'ask the primary owner to allow runners for this owner' };
  }
  // spawn without a shell looks the command up in the PATH of the env it is given: the server's, unless the runner sets one.
  const env: NodeJS.ProcessEnv = { ...process.env, ...r.env };
  for (const k of Object.keys(env)) if (k.startsWith('AGENT_ROOMS_')) delete env[k];
  const resolved = onPath(r.command, env) ?? null;
  if (!resolved) {
    const problem = r.command.includes('/')
      ? `${r.command} does not exist or is not executable`
      : `${r.command} is not on the server's PATH (a server started from the desktop or another shell lacks your shell's PATH)`;
    return { ...base, resolved, version: null, ok: false, problem, fix: connectFix(a, r.host) + ' (records the absolute path of the CLI)' };
  }
  if (r.cwd && !isDir(r.cwd)) {
    return { ...base, resolved, version: null, ok: false, problem: `the runner's working folder ${r.cwd} does not exist`, fix: `PUT /v1/agents/${a.plate}/runners/${r.host} with an existing cwd` };
  }
  const v = await versionOf(core, resolved, env, r.cwd ?? undefined);
  const line = mask(v.out, [...Object.values(r.env), ...knownSecrets(core)]).trim().split('\n')[0]?.slice(0, OUTPUT_KEEP) ?? '';
  if (v.error || v.code !== 0) {
    return {
      ...base,
      resolved,
      version: line || null,
      ok: false,
      problem: `${resolved} --version ${v.error ? `failed: ${v.error}` : `exited with code ${v.code}`}${line ? `: ${line}` : ''}`,
      fix: connectFix(a, r.host),
    };
  }
  return { ...base, resolved, version: line || null, ok: true, problem: null, fix: null };
}

/** Everything on the server's side that decides whether a mention of this agent wakes it. */
export async function wakeability(core: Core, a: AgentRow, credentials: readonly string[]): Promise<WakeabilityReport> {
  const channel = channelSessionOf(core, a.plate) !== undefined;
  const runners = await Promise.all(runnersOf(core.db, a.plate).map((r) => checkRunner(core, a, r)));
  const first = runners[0];
  let wakesBy: WakeabilityReport['wakes_by'];
  let reason: string;
  if (a.revoked_at !== null) {
    wakesBy = 'inbox';
    reason = 'the agent is revoked';
  } else if (channel) {
    wakesBy = 'channel';
    reason = 'a live Claude Code session with channels on takes the push';
  } else if (first?.ok) {
    wakesBy = 'runner';
    reason = `the ${first.host} runner starts ${first.resolved}`;
  } else if (first) {
    wakesBy = 'inbox';
    reason = `the ${first.host} runner cannot start: ${first.problem}`;
  } else {
    wakesBy = 'inbox';
    reason = 'no runner and no live channel session: a mention waits in the inbox until the agent checks it';
  }
  return {
    plate: a.plate,
    handle: agentHandle(a),
    channel_session: channel,
    runners,
    wakes_by: wakesBy,
    reason,
    credentials: credentials.map((secret) => {
      const c = credentialBySecret(core.db, secret);
      return { live: !!c && c.agent_id === a.id && !isRevoked(core.db, a.id, c.id, c.device_id) };
    }),
  };
}

/**
 * GET /v1/doctor/worktrees (docs/worktrees.md "Clean-up"): the server's git, the worktrees
 * folder, what each preset's edit and full can do on this machine, and (for the primary owner,
 * who sees every room's folders) the task folders whose task is gone or no longer has them.
 */
export async function worktreeDoctor(core: Core, primary: boolean) {
  const dir = core.config.worktreesDir;
  const git = await core.ports.worktrees.checkGit(core.config.home);
  const folders = core.ports.worktrees.folders(dir);
  const orphans: Array<{ path: string; room: string; task_id: string; why: string }> = [];
  if (primary) {
    for (const f of folders.slice(0, 10_000)) {
      const t = core.ports.taskWakes.worktreeOf(core.db, f.task_id);
      const why = !t ? 'its task is gone' : t.room !== f.room ? 'its task is in another room' : t.removed ? 'its task was merged, cancelled or archived' : t.worktree?.path !== f.path ? 'its task records another folder' : undefined;
      if (why) orphans.push({ ...f, why });
    }
  }
  return { git, worktrees_dir: dir, task_worktrees: primary ? folders.length - orphans.length : null, orphans, work: sandboxReport() };
}
