import type { Core } from '../core.js';
import { mcpUrl } from '../core.js';
import { agentHandle, deleteRunnerCredential, type AgentRow } from '../agents/store.js';
import { finishWake, getWake, type WakeRow } from './store.js';
import { processRunnerOf, runProcess, type ProcessOutcome, type RunnerConfig, type RunningProcess } from './runners.js';
import { RUNNER_PRESETS } from './presets.js';
import { envelopeOf, type WakeEnvelope } from './envelope.js';
import { runnerSpawnSpec } from './spawn-spec.js';
import { workRefusal } from './sandbox.js';
import { closeRunWorkspace, openRunWorkspace, retireWorktree, type RunWorkspace } from './run-workspace.js';
import { TranscriptWriter } from './transcript-log.js';
import { transcriptFormatOf } from './transcript.js';
import { knownSecrets } from './secrets.js';
import { workspaceRow } from '../workspace/store.js';
import { hostAdapter } from '../hosts/adapter.js';
import type { RunHome } from '../hosts/adapter.js';
import { serverNameFor } from './presets.js';
import { stopLeftovers } from './leftovers.js';

/** The reason of a run that exited 0 after its host refused the room's tools (an approval rule), with the host's words. */
export function toolsRefusedReason(words: string): string {
  return `tools_refused: the host refused the room's tools (an approval rule of its settings), so the run could not act in the room: ${words}`;
}

/**
 * One runner run (docs/wakes.md): from a wake the dispatcher began (running, with its run
 * credential) to its end. Its steps: open the run's workspace (a task's worktree, or the folder
 * it worked in before), decide its work policy, build its spawn spec, run the process while its
 * transcript is written, then close the workspace (commit what it left) and finish the wake.
 * Every failure on the way finishes the wake `failed` with the reason a human can act on.
 */

/** What a run needs of the dispatcher that owns it. */
export interface RunOwner {
  readonly core: Core;
  isStopped(): boolean;
  /** The run's wake changed (the UI listens). */
  changed(roomId: string): void;
  /** Look at the queues again. */
  kick(full?: boolean): void;
  /** After the process spawned. */
  started(w: WakeRow): void;
  /** The task lease's holder (this run) is gone. */
  leaseHolderGone(instanceId: string, taskId: string): void;
  /** The reason a channel session let this wake go, if one did (taken: said once). */
  takeFallback(wakeId: string): string | undefined;
  /** Tool calls the run's sessions made (they are closed first, so the count is whole); the run leaves the dispatcher's list. */
  takeToolCalls(run: RunnerRun): Promise<number>;
}

type Ending = { failure: string } | { outcome: ProcessOutcome };

/** The reason of a run's end, as the wake records it. */
export function outcomeReason(o: ProcessOutcome, timeoutMs: number, spawned?: { command: string; path?: string }): { handled: boolean; reason: string | null } {
  const handled = !o.spawnError && !o.timedOut && !o.killedReason && o.exitCode === 0;
  let reason: string | null = null;
  if (o.spawnError === 'ENOENT' && spawned) reason = notFoundReason(spawned.command, spawned.path);
  else if (o.spawnError) reason = `the runner command could not be started (${o.spawnError})`;
  else if (o.timedOut) reason = `the runner timed out after ${timeoutMs} ms`;
  else if (o.killedReason) reason = o.killedReason;
  else if (o.exitCode !== 0 && o.exitCode !== null) reason = `the runner exited with code ${o.exitCode}`;
  else if (o.signal) reason = `the runner was ended by ${o.signal}`;
  else if (!handled) reason = 'the runner ended without an exit code';
  return { handled, reason };
}

/** The most characters of the server's PATH a reason quotes. */
const PATH_SHOWN = 300;

/**
 * ENOENT from spawn: the command is not on the PATH the run was given (a bare name) or not at
 * that path; said with the PATH and the fix, so the failed wake's cause (cause.ts) names both.
 */
export function notFoundReason(command: string, path: string | undefined): string {
  const p = path ?? '';
  const shown = p.length > PATH_SHOWN ? `${p.slice(0, PATH_SHOWN)}…` : p;
  if (command.includes('/') || command.includes('\\')) {
    return `the runner command could not be started (ENOENT): ${command} does not exist on the server; install it there or correct the runner's command`;
  }
  return `the runner command could not be started (ENOENT): \`${command}\` was not found on the server's PATH (${shown || 'empty'}); install it or set the runner's command to its full path`;
}

/** A task wake's payload as the run reads it: the task record with its worktree as the run found it. */
function contentFor(w: WakeRow, ws: RunWorkspace): string {
  if (!w.task_id || w.trigger === 'mention') return w.content;
  try {
    const payload = JSON.parse(w.content) as { task?: Record<string, unknown> };
    if (!payload.task || typeof payload.task !== 'object') return w.content;
    payload.task.worktree = ws.worktree;
    payload.task.worktree_reason = ws.worktree ? null : ws.worktreeReason;
    return JSON.stringify(payload);
  } catch {
    return w.content;
  }
}

/**
 * What the task's branch changes now that a run ended (docs/review.md "Overlaps"): computed off the
 * event loop by the worktrees port, kept by the tasks capability; the board hears of a change.
 */
async function refreshChangedPaths(core: Core, taskId: string, roomId: string, worktree: NonNullable<RunWorkspace['worktree']>): Promise<void> {
  const repo = workspaceRow(core.db, roomId)?.local_path;
  if (!repo) return;
  try {
    const ch = await core.ports.worktrees.changes({ repo, worktree });
    if (!core.db.open || !('base' in ch)) return;
    const paths = ch.files.flatMap((f) => (f.old_path ? [f.path, f.old_path] : [f.path]));
    if (core.ports.taskWakes.recordChangedPaths(core.db, taskId, paths)) core.bus.emit({ type: 'board.changed', room: roomId });
  } catch (err) {
    core.config.log(`changes of task ${taskId} not read: ${(err as Error).message}`);
  }
}

export class RunnerRun {
  readonly wakeId: string;
  readonly ownerId: string;
  /** A task run holds the task's lease as the runner instance; the server renews it while the process lives. */
  lease?: { taskId: string; instanceId: string; renewedAt: number };
  private proc?: RunningProcess;
  private killedReason?: string;
  /** The run's per-run home and environment, for the usage a host writes to a file and the adapter's cleanup. */
  private runHome?: RunHome;
  private runEnv?: NodeJS.ProcessEnv;
  /** The run is a real child process (not a test's in-process runner): what it leaves behind is looked for. */
  private spawned = false;
  /** The PATH the process was spawned with: an ENOENT is said against it. */
  private spawnPath?: string;

  constructor(
    private readonly owner: RunOwner,
    private readonly w: WakeRow,
    private readonly a: AgentRow,
    private readonly runner: RunnerConfig,
    readonly credential: { credential: string; credentialId: string },
    readonly instanceId: string,
    private readonly contextVersion: number,
  ) {
    this.wakeId = w.id;
    this.ownerId = a.owner_id;
    if (w.task_id) this.lease = { taskId: w.task_id, instanceId, renewedAt: Date.now() };
  }

  get credentialId(): string {
    return this.credential.credentialId;
  }

  /** Ends the run with `reason`: its process group is killed, or it never starts. */
  kill(reason: string): void {
    this.killedReason ??= reason;
    this.proc?.kill(reason);
  }

  forceKill(): void {
    this.proc?.forceKill();
  }

  /** Settles when the process is gone (at once when none was started). */
  processDone(): Promise<unknown> {
    return this.proc?.done ?? Promise.resolve();
  }

  /** The whole run; never rejects. */
  async run(): Promise<void> {
    const { core } = this.owner;
    const { w, a, runner } = this;
    let ws: RunWorkspace | undefined;
    let writer: TranscriptWriter | undefined;
    try {
      const opened = await openRunWorkspace(core, w, a, runner);
      if ('refused' in opened) return await this.end({ failure: opened.refused });
      ws = opened;
      if (this.owner.isStopped()) return await this.end({ failure: 'server shut down while the runner was starting' }, ws);
      if (this.killedReason || getWake(core.db, w.id)?.status !== 'running') {
        return await this.end({ failure: this.killedReason ?? 'the wake ended before its run started' }, ws);
      }
      // The default: a run in a task's worktree may edit it; any other run has the room's tools only.
      const policy = runner.work ?? (ws.worktree ? 'edit' : 'room');
      const preset = runner.preset ? RUNNER_PRESETS[runner.preset] : undefined;
      const refused = preset && (runner.work || policy !== 'room') ? workRefusal(preset, policy, { ...process.env, ...runner.env }) : undefined;
      if (refused) return await this.end({ failure: refused }, ws);
      const envelope: WakeEnvelope = {
        ...envelopeOf(w, a, runner.host, agentHandle(a), this.contextVersion),
        ...(w.task_id ? { worktree: ws.worktree, ...(ws.worktreeReason ? { worktree_reason: ws.worktreeReason } : {}) } : {}),
      };
      // The host's MCP resource: its own host-bound one, or the generic /mcp (opencode, copilot, qwen, cline).
      const spec = runnerSpawnSpec(runner, envelope, mcpUrl(core, hostAdapter(runner.host)?.mcpResource ?? runner.host), this.credential.credential, policy);
      if ('refused' in spec) return await this.end({ failure: spec.refused }, ws);
      if (spec.home) ws.homes.push(spec.home);
      this.spawnPath = spec.env.PATH ?? process.env.PATH;
      const secrets = [this.credential.credential, ...knownSecrets(core)];
      const adapter = hostAdapter(runner.host);
      const transcript = new TranscriptWriter(core, w.id, w.room_id, transcriptFormatOf(runner.host, runner.preset, spec.args), secrets, { adapter, server: serverNameFor(runner.plate) });
      writer = transcript;
      this.runHome = spec.home;
      this.runEnv = spec.env;
      const start = processRunnerOf(core);
      this.spawned = start === runProcess;
      this.proc = start({
        ...(adapter?.usageEvent ? { usageEvent: adapter.usageEvent } : {}),
        command: spec.command ?? runner.command,
        args: spec.args,
        cwd: ws.cwd,
        env: spec.env,
        stdin: contentFor(w, ws),
        timeoutMs: runner.timeout_ms,
        secrets,
        onOutput: (stream, chunk) => transcript.output(stream, chunk),
      });
    } catch (err) {
      core.config.log(`runner of wake ${w.id} not started: ${(err as Error).message}`);
      return await this.end({ failure: 'the runner command could not be started' }, ws, writer);
    }
    // A kill that came while the workspace was being made reaches the process now.
    if (this.killedReason) this.proc.kill(this.killedReason);
    this.owner.started(w);
    const outcome = await this.proc.done;
    await this.end({ outcome }, ws, writer);
  }

  /** The run's process group is gone (runners.ts); helpers that left it, and the adapter's own cleanup, go too. */
  private async stopHelpers(): Promise<void> {
    const { core } = this.owner;
    try {
      const n = await stopLeftovers(this.w.id);
      if (n) core.config.log(`wake ${this.w.id}: stopped ${n} process(es) its run left behind`);
      await hostAdapter(this.runner.host)?.cleanup?.({ env: this.runEnv ?? {}, home: this.runHome });
    } catch (err) {
      core.config.log(`wake ${this.w.id}: cleaning up after its run failed: ${(err as Error).message}`);
    }
  }

  private async end(ending: Ending, ws?: RunWorkspace, writer?: TranscriptWriter): Promise<void> {
    const { core } = this.owner;
    const { db } = core;
    const { w, a, runner } = this;
    if (this.owner.isStopped()) {
      // stop() failed the wake; only what the run left on disk is tidied.
      writer?.close();
      if (ws) for (const h of ws.homes) h.cleanup();
      return;
    }
    deleteRunnerCredential(db, this.credential.credentialId);
    const toolCalls = await this.owner.takeToolCalls(this);
    writer?.finish();
    // A host that writes its usage to a file of the run's home (read before the home is removed).
    const ran = 'outcome' in ending ? ending.outcome : undefined;
    let usage = ran?.usage;
    if (ran && !usage) {
      try {
        usage = this.runHome?.usage?.();
      } catch {
        usage = undefined;
      }
    }
    const closed = ws ? await closeRunWorkspace(core, ws, a, w.id) : { committed: null };
    if (this.owner.isStopped() || !db.open) {
      writer?.close();
      return;
    }
    const o = 'outcome' in ending ? ending.outcome : undefined;
    const judged = o ? outcomeReason(o, runner.timeout_ms, { command: runner.command, path: this.spawnPath }) : { handled: false, reason: (ending as { failure: string }).failure };
    // Exit 0 after the host refused the room's tools (an approval rule) is no handled wake (hosts/adapter.ts toolsRefused).
    const refusedWords = o && judged.handled ? writer?.toolsRefused() : undefined;
    const handled = judged.handled && refusedWords === undefined;
    let reason = refusedWords !== undefined ? toolsRefusedReason(refusedWords) : judged.reason;
    if (o && handled && toolCalls === 0) reason = 'the runner exited 0 without a single tool call back';
    // A wake the channel session let go keeps saying so when the runner handled it.
    const fellBack = this.owner.takeFallback(w.id);
    if (fellBack && reason === null) reason = `${fellBack}; the runner handled it`;
    if (closed.problem) reason = `${reason ? `${reason}; ` : ''}the run's changes were not committed (they are still in the worktree): ${closed.problem}`;
    if (closed.committed && ws?.worktree) {
      writer?.note({ kind: 'text', summary: `committed what the run left uncommitted on ${ws.worktree.branch}: ${closed.committed.slice(0, 12)}` });
    }
    if (!handled && reason) writer?.note({ kind: 'error', summary: reason });
    writer?.close();
    finishWake(db, w.id, handled ? 'handled' : 'failed', reason, {
      exitCode: o?.exitCode ?? null,
      stdoutTail: o?.stdoutTail,
      stderrTail: o?.stderrTail,
      toolCalls,
      flaggedNoToolCall: handled && toolCalls === 0,
      usage,
    });
    if (w.task_id) {
      this.owner.leaseHolderGone(this.instanceId, w.task_id);
      if (ws?.worktree) void refreshChangedPaths(core, w.task_id, w.room_id, ws.worktree);
      // A task cancelled or archived while this run worked: its worktree goes now that no run is in it.
      void retireWorktree(core, w.task_id).catch(() => undefined);
    }
    this.owner.changed(w.room_id);
    // A run never outlives its wake: what its CLI left behind (a daemon out of its process group) stops
    // now, once the wake's end is written (the sweep reads /proc, which takes a moment on a busy machine).
    if (this.proc && this.spawned) await this.stopHelpers();
    this.owner.kick();
  }
}
