import { spawn } from 'node:child_process';
import { isAbsolute } from 'node:path';
import type { Core } from '../core.js';
import type { Db } from '../db/open.js';
import { stmt } from '../db/stmt.js';
import { defineMemo, recall } from '../db/watch.js';
import { keptUsage, maskBounded } from './mask.js';
import { openEnv, sealEnv } from './env-seal.js';
import type { WakeUsage } from './store.js';
import { UsageScanner } from './usage.js';
import type { HostAdapter } from '../hosts/adapter.js';
import { RUNNER_PRESETS, RUNNER_TIMEOUT_DEFAULT_MS, type PresetName, type WorkPolicy } from './presets.js';

/** What an owner configured for one agent on one host. */
export interface RunnerConfig {
  plate: string;
  host: string;
  preset: PresetName | null;
  command: string;
  args: string[];
  /** null: the room workspace's local_path when the agent's own owner set it, else a per-agent scratch folder (never the data home). */
  cwd: string | null;
  timeout_ms: number;
  env: Record<string, string>;
  /** Queued mention wakes of one (agent, room) start as one run (docs/wakes.md "Coalescing"). */
  coalesce: boolean;
  /** What its runs may do (docs/worktrees.md "Work policies"); null: edit in a task's worktree, else room. */
  work: WorkPolicy | null;
  created_at: number;
  updated_at: number;
}

interface RunnerRow {
  plate: string;
  host: string;
  preset: string | null;
  command: string;
  args: string;
  cwd: string | null;
  timeout_ms: number;
  env: string;
  coalesce: number;
  work: string | null;
  created_at: number;
  updated_at: number;
}

function fromRow(db: Db, r: RunnerRow): RunnerConfig {
  // A preset runner follows the preset as this build defines it, not the args saved with it;
  // its command is the absolute path saved with it, if any (agent-rooms connect resolves one).
  const preset = r.preset && r.preset in RUNNER_PRESETS ? RUNNER_PRESETS[r.preset as PresetName] : undefined;
  return {
    ...r,
    preset: r.preset as PresetName | null,
    command: preset ? (isAbsolute(r.command) ? r.command : preset.command) : r.command,
    args: preset ? [...preset.args] : (JSON.parse(r.args) as string[]),
    env: openEnv(db, r.plate, r.host, r.env),
    coalesce: r.coalesce === 1,
    work: (r.work as WorkPolicy | null) ?? null,
  };
}

interface RunnerCommon {
  cwd?: string;
  timeout_ms?: number;
  env?: Record<string, string>;
  coalesce?: boolean;
  work?: WorkPolicy | null;
}
export type RunnerInput = ({ preset: PresetName; command?: string } & RunnerCommon) | ({ command: string; args?: string[] } & RunnerCommon);

/** Creates or replaces the runner of (agent, host); a replaced runner keeps its place in the order. */
export function putRunner(db: Db, plate: string, host: string, input: RunnerInput): RunnerConfig {
  const now = Date.now();
  const p = 'preset' in input ? RUNNER_PRESETS[input.preset] : undefined;
  const command = p ? (input.command ?? p.command) : (input as { command: string }).command;
  const args = p ? [...p.args] : ((input as { args?: string[] }).args ?? []);
  const env = 'env' in input && input.env ? input.env : {};
  stmt(
    db,
    `INSERT INTO runners (plate, host, preset, command, args, cwd, timeout_ms, env, coalesce, work, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (plate, host) DO UPDATE SET preset = excluded.preset, command = excluded.command, args = excluded.args,
       cwd = excluded.cwd, timeout_ms = excluded.timeout_ms, env = excluded.env, coalesce = excluded.coalesce, work = excluded.work,
       updated_at = excluded.updated_at`,
  ).run(
    plate,
    host,
    'preset' in input ? input.preset : null,
    command,
    JSON.stringify(args),
    input.cwd ?? null,
    input.timeout_ms ?? RUNNER_TIMEOUT_DEFAULT_MS,
    sealEnv(db, plate, host, env),
    input.coalesce ? 1 : 0,
    input.work ?? null,
    now,
    now,
  );
  return getRunner(db, plate, host)!;
}

export function getRunner(db: Db, plate: string, host: string): RunnerConfig | undefined {
  const r = stmt(db, 'SELECT * FROM runners WHERE plate = ? AND host = ?').get(plate, host) as RunnerRow | undefined;
  return r && fromRow(db, r);
}

export function deleteRunner(db: Db, plate: string, host: string): boolean {
  return stmt(db, 'DELETE FROM runners WHERE plate = ? AND host = ?').run(plate, host).changes === 1;
}

/** Agents known to have a runner or not, until a runner is added, removed or moved (db/watch.ts). */
const runnerKnown = defineMemo<boolean>('runners', [
  { table: 'runners', on: 'INSERT' },
  { table: 'runners', on: 'DELETE' },
  { table: 'runners', on: 'UPDATE OF plate' },
]);

/** Whether the agent has a runner on any host (a mention asks it for every target: no row is decoded). */
export function hasRunner(db: Db, plate: string): boolean {
  return recall(runnerKnown(db), plate, () => stmt(db, 'SELECT 1 FROM runners WHERE plate = ? LIMIT 1').get(plate) !== undefined);
}

/** docs/contract.md "Wakes": with runners on several hosts, the first configured one is woken. */
export function firstRunner(db: Db, plate: string): RunnerConfig | undefined {
  const r = stmt(db, 'SELECT * FROM runners WHERE plate = ? ORDER BY created_at, host LIMIT 1').get(plate) as RunnerRow | undefined;
  return r && fromRow(db, r);
}

/** Every runner's env values, whoever configured it: output tails mask them all. */
export function allRunnerEnvValues(db: Db): string[] {
  return (stmt(db, 'SELECT * FROM runners').all() as RunnerRow[]).flatMap((r) => {
    try {
      return Object.values(fromRow(db, r).env);
    } catch {
      return [];
    }
  });
}

export function runnersOf(db: Db, plate: string): RunnerConfig[] {
  return (stmt(db, 'SELECT * FROM runners WHERE plate = ? ORDER BY created_at, host').all(plate) as RunnerRow[]).map((r) => fromRow(db, r));
}

/** The human-facing shape: the env values are the owner's own, but may hold secrets, so only names show. */
export function runnerDto(r: RunnerConfig) {
  return {
    plate: r.plate,
    host: r.host,
    ...(r.preset ? { preset: r.preset } : {}),
    command: r.command,
    args: r.args,
    cwd: r.cwd,
    timeout_ms: r.timeout_ms,
    env: Object.fromEntries(Object.keys(r.env).map((k) => [k, '***'])),
    coalesce: r.coalesce,
    work: r.work,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Output kept for the human: the last 4 KiB of each stream. */
export const TAIL_BYTES = 4096;
/**
 * Masks every secret pattern this server issues, whoever it belongs to (docs/security.md), in
 * time linear in the text (mask.ts: a runner's answer may be megabytes of hostile text).
 */
export { maskIssuedSecrets } from './mask.js';

/** Keeps the last bytes of a stream; enough slack that a secret cut at the edge is dropped, not half-shown. */
class Tail {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly keep: number) {}
  push(b: Buffer) {
    this.chunks.push(b);
    this.size += b.length;
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.keep) this.size -= this.chunks.shift()!.length;
  }
  text(secrets: string[]): string {
    return keptText(Buffer.concat(this.chunks).subarray(-this.keep).toString('utf8'), secrets);
  }
}

/** What a human may read of a run's output: secrets masked, the last TAIL_BYTES (test process runners keep it alike). */
export function keptText(text: string, secrets: string[]): string {
  // Only the end is kept, so only the end is masked (its last TAIL_BYTES characters and a margin,
  // mask.ts maskBounded): a 4 MiB answer masked whole cost ~100 ms a stream (docs/security.md "Third round").
  const s = maskBounded(text, secrets, TAIL_BYTES, true);
  const bytes = Buffer.from(s, 'utf8');
  return bytes.length <= TAIL_BYTES ? s : bytes.subarray(bytes.length - TAIL_BYTES).toString('utf8').replace(/^\uFFFD+/, '');
}

export interface ProcessOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  killedReason?: string;
  /** The command could not be started at all (e.g. ENOENT). */
  spawnError?: string;
  stdoutTail: string;
  stderrTail: string;
  /** What the run cost, read from its output (usage.ts), when it said. */
  usage?: WakeUsage;
}

export interface RunningProcess {
  pid: number | undefined;
  done: Promise<ProcessOutcome>;
  /** Kills the whole process group (SIGTERM, then SIGKILL); the outcome carries the reason. */
  kill(reason: string): void;
  /** SIGKILL to the whole group, now. */
  forceKill(): void;
}

/** One run to start: what the dispatcher hands the process runner. */
export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  /** Masked in the kept output. */
  secrets: string[];
  /** Each chunk the run prints, as it arrives (the transcript reads stdout; any output counts as a sign of life). */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** The host adapter's reading of its JSON output for usage and answer (hosts/adapter.ts usageEvent). */
  usageEvent?: HostAdapter['usageEvent'];
}

/** What starts a run: `runProcess` (a child process) in the product; a test may give its own (docs/testing.md). */
export type ProcessRunner = (spec: ProcessSpec) => RunningProcess;

declare module '../core.js' {
  interface CoreServices {
    /** What starts a run: `runProcess` unless assembleCore was given another (a test's `processRunner`). */
    processRunner: ProcessRunner;
  }
}

/** The process runner of this core: `runProcess` unless a test gave another to assembleCore. */
export function processRunnerOf(core: Core): ProcessRunner {
  return core.services.processRunner;
}

/**
 * Spawns a runner without a shell, in its own process group, with the content on stdin.
 * On timeout or kill the whole group gets SIGTERM, then SIGKILL a moment later.
 */
export function runProcess(opts: ProcessSpec): RunningProcess {
  const out = new Tail(TAIL_BYTES * 2);
  const err = new Tail(TAIL_BYTES * 2);
  let timedOut = false;
  let killedReason: string | undefined;
  let spawnError: string | undefined;
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env,
    shell: false,
    detached: process.platform !== 'win32',
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // already gone
    }
  };
  let hardKill: NodeJS.Timeout | undefined;
  const terminate = () => {
    killGroup('SIGTERM');
    hardKill ??= setTimeout(() => killGroup('SIGKILL'), 2000);
    hardKill.unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    terminate();
  }, opts.timeoutMs);
  timer.unref();

  const scanner = new UsageScanner(opts.usageEvent);
  child.stdout!.on('data', (b: Buffer) => {
    out.push(b);
    scanner.push(b);
    opts.onOutput?.('stdout', b);
  });
  child.stderr!.on('data', (b: Buffer) => {
    err.push(b);
    opts.onOutput?.('stderr', b);
  });
  // A runner that does not read its stdin must not crash the server with EPIPE.
  child.stdin!.on('error', () => {});
  child.stdin!.end(opts.stdin);

  const done = new Promise<ProcessOutcome>((resolve) => {
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever the runner left behind in its group goes with it.
      if (child.pid !== undefined && process.platform !== 'win32') killGroup('SIGKILL');
      if (hardKill) clearTimeout(hardKill);
      const read = scanner.result();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        killedReason,
        spawnError,
        // A JSON output mode's stream is kept as the model's final answer, which a human can read.
        stdoutTail: read.answer !== undefined ? keptText(read.answer, opts.secrets) : out.text(opts.secrets),
        stderrTail: err.text(opts.secrets),
        // The model's name is runner output too: masked and bounded like the tails.
        ...(read.usage ? { usage: keptUsage(read.usage, opts.secrets) } : {}),
      });
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code ?? 'spawn failed';
      settle();
    });
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      // Grandchildren may hold the pipes open: do not wait on them for long.
      setTimeout(settle, 1000).unref();
    });
    child.once('close', (code, signal) => {
      exit ??= { code, signal };
      settle();
    });
  });

  return {
    pid: child.pid,
    done,
    kill(reason: string) {
      killedReason ??= reason;
      terminate();
    },
    forceKill() {
      killGroup('SIGKILL');
    },
  };
}
