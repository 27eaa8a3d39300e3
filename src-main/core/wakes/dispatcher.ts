import { statSync } from 'node:fs';
import type { Core, AgentActedEvent } from '../core.js';
import { mcpUrl } from '../core.js';
import { immediate } from '../db/open.js';
import { agentHandle, createCredential, deleteRunnerCredential, getAgentByPlate, pruneRevokedRunnerCredentials, revokeCredential, type AgentRow } from '../agents/store.js';
import { getRoom, isAgentMember, touchRoom, trustMode } from '../rooms/store.js';
import { mayRunCommands } from '../owners/store.js';
import { hasScope } from '../../../shared/scopes.js';
import { workspaceRow } from '../workspace/store.js';
import type { McpSession } from '../sessions.js';
import {
  BODY_OF_MESSAGE,
  dropQueued,
  failLeftRunning,
  finishWake,
  handleWakesOnAct,
  holdWake,
  keyBusy,
  mergeQueuedMentions,
  setCoalescedContent,
  startedSince,
  type HoldReason,
  markPull,
  markRunning,
  queueHeads,
  requeueChannelWake,
  olderQueued,
  runningWakes,
  type WakeRow,
} from './store.js';
import { channelAckMs, channelFallbackReason, channelSessionOf, channelTimeoutMs, markChannelDeaf, pushChannel } from './channel.js';
import { firstRunner, processRunnerOf, type ProcessOutcome, type RunnerConfig, type RunningProcess } from './runners.js';
import { expandRunnerArgs, RUNNER_PRESETS, serverNameFor, type PresetDef } from './presets.js';
import { codexOtherServerArgs, geminiRunHome, wakeInstructions, type RunHome } from './run-home.js';
import { isInsideHome, knownSecrets, scratchFolder } from './secrets.js';
import type { StopStep } from '../util/repeat.js';
import { wakeLimits } from './limits.js';

export const RESTART_REASON = 'server restarted while the wake was running';
export const SHUTDOWN_REASON = 'server shut down while the wake was running';
export const RUNNERS_REVOKED_REASON =
  "runners of this agent's owner are disabled: the primary owner has not allowed this owner to run commands on this machine";
/** The safety net behind the event-driven kicks; also how often channel timeouts are checked. */
const POLL_MS = 1000;

/** The envelope of a wake (docs/wakes.md); the channel push carries it as string meta. */
export interface WakeEnvelope {
  wake_id: string;
  plate: string;
  handle: string;
  room: string;
  host: string;
  trigger: WakeRow['trigger'];
  context_version: number;
  task_id?: string;
  message_id?: string;
  /** A coalesced run: every message it answers, in order (docs/wakes.md "Coalescing"). */
  message_ids?: string[];
}

function envelopeOf(w: WakeRow, a: AgentRow, host: string, handle: string, contextVersion: number): WakeEnvelope {
  return {
    wake_id: w.id,
    plate: a.plate,
    handle,
    room: w.room_id,
    host,
    trigger: w.trigger,
    context_version: contextVersion,
    ...(w.task_id ? { task_id: w.task_id } : {}),
    ...(w.message_id ? { message_id: w.message_id } : {}),
    ...(w.message_ids ? { message_ids: JSON.parse(w.message_ids) as string[] } : {}),
  };
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Why a wake about to start is held instead (docs/wakes.md): deeper than the loop guard's
 * limit, or its agent already started its budget of wakes in the last hour. A wake a human
 * released starts past both.
 */
function holdReasonOf(core: Core, w: WakeRow): HoldReason | undefined {
  if (w.released_at !== null) return undefined;
  const limits = wakeLimits(core);
  if (w.chain_depth > limits.max_chain) return 'loop_guard';
  if (limits.wake_budget > 0 && startedSince(core.db, w.plate, Date.now() - HOUR_MS) >= limits.wake_budget) return 'budget';
  return undefined;
}

export function envelopeMeta(e: WakeEnvelope): Record<string, string> {
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, String(v)]));
}

/**
 * The room workspace's local folder, only when the agent's own owner set it: a path another
 * owner (say a room admin) configured never becomes the working folder of your runner.
 */
function workspaceFolder(core: Core, roomId: string, agentOwnerId: string): string | undefined {
  const r = workspaceRow(core.db, roomId);
  return r?.local_path && r.local_path_by === agentOwnerId ? r.local_path : undefined;
}

/** Where a run works (docs/security.md): its own cwd, else its owner's workspace path, else a scratch folder; never the data home. */
function runnerCwd(core: Core, runner: RunnerConfig, a: AgentRow, roomId: string): { cwd: string } | { refused: string } {
  let cwd = runner.cwd ?? workspaceFolder(core, roomId, a.owner_id);
  if (!cwd) {
    try {
      cwd = scratchFolder(a.plate);
    } catch {
      return { refused: 'the runner scratch folder could not be created' };
    }
  }
  if (isInsideHome(core.config.home, cwd)) return { refused: 'the runner working folder is the data home or inside it; runners never work there' };
  if (!isDir(cwd)) return { refused: 'the runner working folder does not exist' };
  return { cwd };
}

/**
 * Everything mayWake checked when the wake was queued, checked again as it starts: the
 * agent (revoked, INVOKE), its membership, and the Trust of its owner towards the actor's.
 */
function recheckReason(core: Core, w: WakeRow, a: AgentRow | undefined): string | undefined {
  const { db } = core;
  if (!a || a.revoked_at !== null) return 'the agent was revoked';
  if (!isAgentMember(db, w.room_id, w.plate)) return 'the agent is no longer a member of the room';
  if (!hasScope(a.scopes, 'INVOKE')) return 'the agent no longer holds INVOKE';
  if (w.actor_owner_id && w.actor_owner_id !== a.owner_id && trustMode(db, w.room_id, a.owner_id) !== 'trust_room') {
    return "the agent's owner turned Trust off in this room after the wake was queued";
  }
  return undefined;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The server's own AGENT_ROOMS_* settings are not the runner's business. */
function runnerBaseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AGENT_ROOMS_')) env[k] = v;
  return env;
}

/**
 * The args, environment and per-run settings home of one run: the preset's placeholders filled
 * with the per-agent server name and the envelope, the run's own credential in the environment.
 */
function runnerSpawnSpec(runner: RunnerConfig, envelope: WakeEnvelope, hostUrl: string, credential: string) {
  const server = serverNameFor(runner.plate);
  // The presets connect with the core tool profile (docs/hosts.md); custom commands get the plain URL.
  const baseUrl = runner.preset ? `${hostUrl}?tools=core` : hostUrl;
  const instructions = wakeInstructions(envelope, server);
  const env: NodeJS.ProcessEnv = {
    ...runnerBaseEnv(),
    ...runner.env,
    AGENT_ROOMS_WAKE: JSON.stringify(envelope),
    AGENT_ROOMS_MCP_URL: `${baseUrl}${baseUrl.includes('?') ? '&' : '?'}key=${credential}`,
    AGENT_ROOMS_MCP_BASE_URL: baseUrl,
    AGENT_ROOMS_MCP_SERVER: server,
    AGENT_ROOMS_CREDENTIAL: credential,
  };
  const preset: PresetDef | undefined = runner.preset ? RUNNER_PRESETS[runner.preset] : undefined;
  const home = preset?.runHome === 'gemini' ? geminiRunHome({ env, server, mcpBaseUrl: baseUrl, instructions }) : undefined;
  const args = expandRunnerArgs(runner.args, { mcpBaseUrl: baseUrl, server, instructions });
  // Codex also loads every server of the user's config.toml: in a `codex exec` run of this agent (the
  // preset or a command of the owner's own) the other agents' room servers are turned off.
  const codex = runner.preset === 'codex exec' || /(^|[\\/])codex(\.exe|\.cmd)?$/i.test(runner.command);
  if (codex && args[0] === 'exec') args.splice(1, 0, ...codexOtherServerArgs(env, server));
  return { args, env: { ...env, ...home?.env }, home };
}

interface ActiveRun {
  wakeId: string;
  /** The owner of the run's agent: runs end at once when that owner loses allow_runners. */
  ownerId: string;
  credentialId: string;
  proc: RunningProcess;
  /** A task run holds the task's lease as the runner instance; the server renews it while the process lives. */
  lease?: { taskId: string; instanceId: string; renewedAt: number };
}

/** How often a live runner's task lease is renewed for it (well inside the 120 s stale limit). */
const RUNNER_LEASE_RENEW_MS = 30_000;

/**
 * The wake dispatcher: takes the oldest queued wake of each (agent, room), picks its target
 * (a live claude-code channel session, else the agent's first runner, else the inbox), and
 * starts it when nothing runs on that queue key (instance, room, host). Event-driven
 * (core.bus) with a slow poll behind it. All state lives in the wakes table.
 */
export class WakeDispatcher {
  private stopped = false;
  private scheduled = false;
  /** Set while the dispatcher emits a change that needs no pass of its own (see parked). */
  private quiet = false;
  /** The next pass also looks at wakes parked for pull clients. */
  private fullPending = false;
  private readonly runs = new Map<string, ActiveRun>();
  /** Pushed wakes not yet taken: the session and its tool-call count at the push. */
  private readonly pushes = new Map<string, { sessionId: string; toolCalls: number; at: number }>();
  /** Wakes a channel session did not take, with why: they go to the runner or the inbox, never pushed again. */
  private readonly noChannel = new Map<string, string>();
  /** Tool calls of closed sessions, by the run credential that opened them. */
  private readonly toolCallsByCredential = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private offSession?: () => void;

  constructor(private readonly core: Core) {}

  start(): void {
    const { core } = this;
    for (const w of failLeftRunning(core.db, RESTART_REASON)) {
      if (w.run_credential_id) revokeCredential(core.db, w.run_credential_id);
    }
    // Run credentials of ended wakes are deleted, not kept revoked (the wake log keeps the audit).
    pruneRevokedRunnerCredentials(core.db);
    // The live events are only nudges to look again (a slow poll stands behind them); what must
    // happen reaches the dispatcher through the ports (agentActed, runnerRightChanged).
    this.unsubscribe = core.bus.on((e) => {
      if (e.type === 'runners.changed') this.kick(true);
      else if (e.dispatch === false) return;
      else if ((e.type === 'wakes.changed' && !this.quiet) || e.type === 'message.created' || e.type === 'board.changed') this.kick();
    });
    this.offSession = core.sessions.onChange((s, ev) => this.onSession(s, ev));
    this.timer = setInterval(() => this.tick(true), POLL_MS);
    this.timer.unref();
    this.kick(true);
  }

  /**
   * The holder of task leases is gone (a run ended, a session closed): those doing tasks are
   * flagged stale now, not 120 s later. They stay doing and nothing wakes anyone again: a human
   * releases, retries or reassigns (docs/wakes.md "Liveness").
   */
  private leaseHolderGone(instanceId: string, taskId?: string): void {
    const { db } = this.core;
    const rooms = new Set<string>();
    for (const r of this.core.ports.taskWakes.leaseHolderGone(db, instanceId, taskId, Date.now())) rooms.add(r);
    for (const room of rooms) {
      touchRoom(db, room, ['board']);
      this.core.bus.emit({ type: 'board.changed', room });
    }
  }

  /** The runnerRightChanged port: a revoked allow_runners ends that owner's running runs now (docs/security.md). */
  enforceRunnerRights(): void {
    for (const run of this.runs.values()) {
      if (!mayRunCommands(this.core.db, run.ownerId)) run.proc.kill(RUNNERS_REVOKED_REASON);
    }
  }

  /** Schedules one dispatch pass (coalesced); `full` also reconsiders wakes parked for pull. */
  kick(full = false): void {
    if (full) this.fullPending = true;
    if (this.stopped || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const all = this.fullPending;
      this.fullPending = false;
      this.tick(all);
    });
  }

  private changed(roomId: string): void {
    this.core.bus.emit({ type: 'wakes.changed', room: roomId });
  }

  /**
   * Tells the listeners (the UI) that wakes were parked for pull, without scheduling another pass
   * for it: parked wakes are not dispatchable, so that pass would find what this one left.
   */
  private parked(roomId: string): void {
    this.quiet = true;
    try {
      this.changed(roomId);
    } finally {
      this.quiet = false;
    }
  }

  /** After the push was written or the process spawned (the UI and the benchmark listen). */
  private started(w: WakeRow, target: 'channel' | 'runner'): void {
    this.core.bus.emit({ type: 'wake.started', room: w.room_id, data: { wake_id: w.id, plate: w.plate, target } });
  }

  tick(includePull = false): void {
    if (this.stopped) return;
    try {
      this.expireChannelWakes();
      this.renewRunnerLeases();
      for (const head of queueHeads(this.core.db, includePull)) {
        // One wake that cannot start must not hold up the other queues; the poll retries it.
        try {
          this.dispatch(head);
        } catch (err) {
          this.core.config.log(`wake dispatch failed: ${(err as Error).message}`);
        }
      }
    } catch (err) {
      this.core.config.log(`wake dispatch failed: ${(err as Error).message}`);
    }
  }

  private expireChannelWakes(): void {
    const { db } = this.core;
    const now = Date.now();
    const running = runningWakes(db);
    for (const id of this.pushes.keys()) if (!running.some((w) => w.id === id)) this.pushes.delete(id);
    for (const w of running) {
      if (w.target !== 'channel') continue;
      if (this.channelNotTaken(w, now)) continue;
      if (w.deadline_at !== null && w.deadline_at <= now) {
        const ms = channelTimeoutMs();
        if (finishWake(db, w.id, 'failed', `the pushed session did not act in the room within ${ms} ms`)) this.changed(w.room_id);
      } else if (!this.core.sessions.get(w.instance_id ?? '')) {
        if (finishWake(db, w.id, 'failed', 'the session closed before acting in the room')) this.changed(w.room_id);
      }
    }
  }

  /**
   * A push the session never took (no tool call of that session since, within channelAckMs,
   * or the session went away first) goes back to the queue for the runner or the inbox: a
   * session that drops pushes must not hold the wake for the whole channel timeout. The wake
   * moves once (running -> queued, never pushed again), so it cannot run twice.
   */
  private channelNotTaken(w: WakeRow, now: number): boolean {
    const p = this.pushes.get(w.id);
    if (!p) return false;
    const s = this.core.sessions.get(p.sessionId);
    if (s && s.toolCalls > p.toolCalls) {
      this.pushes.delete(w.id);
      return false;
    }
    if (s && now - p.at < channelAckMs()) return false;
    this.pushes.delete(w.id);
    if (s) markChannelDeaf(s);
    const why = channelFallbackReason(!!s);
    const { db } = this.core;
    let receiptBack = false;
    const moved = immediate(db, () => {
      if (!requeueChannelWake(db, w.id, `${why}; handed to the runner or the inbox`)) return false;
      // A task wake gave the session the running receipt: take it back for the next target.
      if (w.task_id) receiptBack = this.core.ports.taskWakes.returnReceipt(db, w.task_id, p.sessionId);
      return true;
    });
    if (!moved) return false;
    this.noChannel.set(w.id, why);
    this.changed(w.room_id);
    if (receiptBack) this.core.bus.emit({ type: 'board.changed', room: w.room_id });
    this.kick(true);
    return true;
  }

  /**
   * A runner is an instance that cannot call renew_lease itself (its MCP sessions are other
   * instances): while its process lives, the server keeps the lease it holds fresh, so the
   * task turns stale only when the run is gone.
   */
  private renewRunnerLeases(): void {
    const now = Date.now();
    for (const run of this.runs.values()) {
      if (!run.lease || now - run.lease.renewedAt < RUNNER_LEASE_RENEW_MS) continue;
      run.lease.renewedAt = now;
      this.core.ports.taskWakes.renewRunnerLease(this.core.db, run.lease.taskId, run.lease.instanceId, now);
    }
  }

  private dispatch(head: WakeRow): void {
    const { core } = this;
    const { db } = core;
    // A head found without the pull-parked wakes may have older ones queued before it.
    const w = head.target === 'pull' ? head : (olderQueued(db, head.plate, head.room_id, head.seq) ?? head);
    const a = getAgentByPlate(db, w.plate);
    let drop = recheckReason(core, w, a);
    if (!drop && w.task_id) drop = taskStaleReason(core, w.task_id, w.plate);
    if (drop || !a) {
      dropQueued(db, w.id, drop ?? 'the agent was revoked');
      this.changed(w.room_id);
      this.kick();
      return;
    }
    const session = this.noChannel.has(w.id) ? undefined : channelSessionOf(core, w.plate);
    if (session) {
      if (!keyBusy(db, session.id, w.room_id, 'claude-code') && !this.held(w)) this.startChannel(w, a, session);
      return;
    }
    const runner = firstRunner(db, w.plate);
    if (runner && !mayRunCommands(db, a.owner_id)) {
      dropQueued(db, w.id, RUNNERS_REVOKED_REASON);
      this.changed(w.room_id);
      this.kick();
      return;
    }
    if (runner) {
      if (!keyBusy(db, runnerInstanceId(runner), w.room_id, runner.host) && !this.held(w)) this.startRunner(w, a, runner);
      return;
    }
    if (markPull(db, w.plate, w.room_id) > 0) this.parked(w.room_id);
  }

  /** Holds the wake instead of starting it, when the loop guard or the budget says so; the queue moves on. */
  private held(w: WakeRow): boolean {
    const why = holdReasonOf(this.core, w);
    if (!why) return false;
    if (holdWake(this.core.db, w.id, why)) {
      this.core.config.log(`wake ${w.id} of ${w.plate} held: ${why}`);
      this.changed(w.room_id);
      this.kick();
    }
    return true;
  }

  /**
   * Marks the wake running and, for a task wake, gives the running receipt: one transaction.
   * `w` takes its model input (a mention's is read from its message). With `coalesce`, the queued
   * mention wakes behind it are merged into it in that same transaction, and `w` takes the joined
   * content and message ids.
   */
  private begin(w: WakeRow, run: Parameters<typeof markRunning>[2], withReceipt = true, coalesce = false): boolean {
    const { db } = this.core;
    let receipt = false;
    const ok = immediate(db, () => {
      if (!markRunning(db, w.id, run)) return false;
      const merged = coalesce && w.trigger === 'mention' ? mergeQueuedMentions(db, w) : [];
      const all = [w, ...merged];
      w.content = this.contentsOf(all).join('\n---\n');
      if (merged.length) {
        w.message_ids = JSON.stringify(all.map((m) => m.message_id).filter((id): id is string => id !== null));
        setCoalescedContent(db, w.id, w.content, JSON.parse(w.message_ids) as string[]);
      }
      if (withReceipt && w.task_id && (w.trigger === 'assignment' || w.trigger === 'successor')) {
        receipt = this.core.ports.taskWakes.receiveRunning(db, w.task_id, w.plate, run.instanceId);
      }
      return true;
    });
    if (ok) {
      this.changed(w.room_id);
      if (receipt) this.core.bus.emit({ type: 'board.changed', room: w.room_id });
    }
    return ok;
  }

  /** The model inputs of wakes: each one's own content, or its message's body (BODY_OF_MESSAGE), read in one lookup through the port. */
  private contentsOf(ws: readonly WakeRow[]): string[] {
    const ids = ws.filter((w) => w.content === BODY_OF_MESSAGE && w.message_id).map((w) => w.message_id!);
    const bodies = new Map(ids.length ? this.core.ports.inboxMessages(this.core.db, ids).map((m) => [m.id, m.body]) : []);
    return ws.map((w) => (w.content === BODY_OF_MESSAGE && w.message_id ? (bodies.get(w.message_id) ?? '') : w.content));
  }

  private contextVersion(roomId: string): number {
    return getRoom(this.core.db, roomId)?.context_version ?? 0;
  }

  private startChannel(w: WakeRow, a: AgentRow, session: McpSession): void {
    const version = this.contextVersion(w.room_id);
    const ok = this.begin(w, {
      target: 'channel',
      host: 'claude-code',
      instanceId: session.id,
      contextVersion: version,
      deadlineAt: Date.now() + channelTimeoutMs(),
    });
    if (!ok) return;
    this.pushes.set(w.id, { sessionId: session.id, toolCalls: session.toolCalls, at: Date.now() });
    const env = envelopeOf(w, a, 'claude-code', `${agentHandle(a)}#${session.label}`, version);
    pushChannel(session, w.content, envelopeMeta(env)).catch(() => {
      if (this.stopped) return;
      if (finishWake(this.core.db, w.id, 'failed', 'the channel push could not be delivered to the session')) this.changed(w.room_id);
      this.kick();
    });
    this.started(w, 'channel');
  }

  private startRunner(w: WakeRow, a: AgentRow, runner: RunnerConfig): void {
    const { core } = this;
    const { db } = core;
    const where = runnerCwd(core, runner, a, w.room_id);
    const version = this.contextVersion(w.room_id);
    const instanceId = runnerInstanceId(runner);
    if ('refused' in where) {
      if (this.begin(w, { target: 'runner', host: runner.host, instanceId, contextVersion: version }, false)) {
        finishWake(db, w.id, 'failed', where.refused);
        this.changed(w.room_id);
        this.kick();
      }
      return;
    }
    const cred = createCredential(db, a.id, 'runner', 'runner');
    if (!this.begin(w, { target: 'runner', host: runner.host, instanceId, contextVersion: version, runCredentialId: cred.credentialId }, true, runner.coalesce)) {
      revokeCredential(db, cred.credentialId);
      return;
    }
    const envelope = envelopeOf(w, a, runner.host, agentHandle(a), version);
    let proc: RunningProcess;
    let home: RunHome | undefined;
    try {
      const baseUrl = mcpUrl(core, runner.host);
      const spawnSpec = runnerSpawnSpec(runner, envelope, baseUrl, cred.credential);
      home = spawnSpec.home;
      proc = processRunnerOf(core)({
        command: runner.command,
        args: spawnSpec.args,
        cwd: where.cwd,
        env: spawnSpec.env,
        stdin: w.content,
        timeoutMs: runner.timeout_ms,
        secrets: [cred.credential, ...knownSecrets(core)],
      });
    } catch {
      home?.cleanup();
      revokeCredential(db, cred.credentialId);
      finishWake(db, w.id, 'failed', 'the runner command could not be started');
      this.changed(w.room_id);
      return;
    }
    if (home) void proc.done.finally(() => home.cleanup());
    const lease = w.task_id ? { taskId: w.task_id, instanceId, renewedAt: Date.now() } : undefined;
    this.runs.set(w.id, { wakeId: w.id, ownerId: a.owner_id, credentialId: cred.credentialId, proc, lease });
    this.started(w, 'runner');
    void proc.done.then((outcome) => this.endRun(w, runner, cred.credentialId, outcome));
  }

  private async endRun(w: WakeRow, runner: RunnerConfig, credentialId: string, o: ProcessOutcome): Promise<void> {
    if (this.stopped) return;
    const { core } = this;
    deleteRunnerCredential(core.db, credentialId);
    // Closing the run's sessions folds their tool calls into the count (onSession) while the run is still listed.
    await core.sessions.closeWhere((s) => s.credentialId === credentialId);
    this.runs.delete(w.id);
    const toolCalls = this.toolCallsByCredential.get(credentialId) ?? 0;
    this.toolCallsByCredential.delete(credentialId);
    if (this.stopped) return;
    const handled = !o.spawnError && !o.timedOut && !o.killedReason && o.exitCode === 0;
    let reason: string | null = null;
    if (o.spawnError) reason = `the runner command could not be started (${o.spawnError})`;
    else if (o.timedOut) reason = `the runner timed out after ${runner.timeout_ms} ms`;
    else if (o.killedReason) reason = o.killedReason;
    else if (o.exitCode !== 0 && o.exitCode !== null) reason = `the runner exited with code ${o.exitCode}`;
    else if (o.signal) reason = `the runner was ended by ${o.signal}`;
    else if (!handled) reason = 'the runner ended without an exit code';
    if (handled && toolCalls === 0) reason = 'the runner exited 0 without a single tool call back';
    // A wake the channel session let go keeps saying so when the runner handled it.
    const fellBack = this.noChannel.get(w.id);
    this.noChannel.delete(w.id);
    if (fellBack && reason === null) reason = `${fellBack}; the runner handled it`;
    finishWake(core.db, w.id, handled ? 'handled' : 'failed', reason, {
      exitCode: o.exitCode,
      stdoutTail: o.stdoutTail,
      stderrTail: o.stderrTail,
      toolCalls,
      flaggedNoToolCall: handled && toolCalls === 0,
      usage: o.usage,
    });
    if (w.task_id) this.leaseHolderGone(runnerInstanceId(runner), w.task_id);
    this.changed(w.room_id);
    this.kick();
  }

  private onSession(s: McpSession, ev: 'open' | 'close'): void {
    if (this.stopped) return;
    if (ev === 'open') {
      if (s.host === 'claude-code') setTimeout(() => this.kick(true), 50).unref();
      return;
    }
    // A session that took its push (called a tool since) and then closed: the wake stays its own.
    for (const [id, p] of this.pushes) if (p.sessionId === s.id && s.toolCalls > p.toolCalls) this.pushes.delete(id);
    for (const run of this.runs.values()) {
      if (run.credentialId === s.credentialId) {
        this.toolCallsByCredential.set(s.credentialId, (this.toolCallsByCredential.get(s.credentialId) ?? 0) + s.toolCalls);
      }
    }
    this.leaseHolderGone(s.id);
    if (s.host === 'claude-code') this.kick();
  }

  /** The agentActed port: the wakes this instance (or, pulled, this agent) had in the room are handled. */
  agentActed(e: AgentActedEvent): void {
    if (this.stopped) return;
    const handled = handleWakesOnAct(this.core.db, e.sessionId, e.plate, e.roomId);
    if (handled.channel + handled.pull > 0) {
      this.changed(e.roomId);
      this.kick();
    }
  }

  /** Live tool calls of a run so far (sessions still open plus closed ones). */
  toolCallsOf(wakeId: string): number | undefined {
    const run = this.runs.get(wakeId);
    if (!run) return undefined;
    let n = this.toolCallsByCredential.get(run.credentialId) ?? 0;
    for (const s of this.core.sessions.all()) if (s.credentialId === run.credentialId) n += s.toolCalls;
    return n;
  }

  /**
   * A human stops one running wake (POST /v1/wakes/:id/stop, docs/wakes.md): the wake is failed
   * with `reason` now (conditional on `running`), then its runner's process group is killed (the
   * run's own end finds the wake finished and only cleans up). False when it was not running.
   */
  stopRun(w: WakeRow, reason: string): boolean {
    if (!finishWake(this.core.db, w.id, 'failed', reason, { toolCalls: this.runs.has(w.id) ? this.toolCallsOf(w.id) : undefined })) return false;
    this.runs.get(w.id)?.proc.kill(reason);
    this.changed(w.room_id);
    this.kick();
    return true;
  }

  /** Stops dispatching; running runners are killed and every running wake is failed with a reason. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    this.offSession?.();
    const runs = [...this.runs.values()];
    for (const r of runs) r.proc.kill(SHUTDOWN_REASON);
    const { db } = this.core;
    immediate(db, () => {
      for (const w of runningWakes(db)) {
        const run = runs.find((r) => r.wakeId === w.id);
        finishWake(db, w.id, 'failed', w.target === 'runner' ? 'server shut down while the runner was running' : SHUTDOWN_REASON, {
          toolCalls: run ? this.toolCallsOf(w.id) : undefined,
        });
        if (w.run_credential_id) revokeCredential(db, w.run_credential_id);
      }
    });
    // Give runners a moment to end on SIGTERM, then make sure none outlives the server.
    await Promise.race([Promise.all(runs.map((r) => r.proc.done)), new Promise((r) => setTimeout(r, 1500).unref())]);
    for (const r of runs) r.proc.forceKill();
    this.runs.clear();
  }
}

/** Why a task wake has nothing left to do, as the tasks capability says (core.ports.taskWakes: wakes imports no tasks). */
function taskStaleReason(core: Core, taskId: string, plate: string): string | undefined {
  return core.ports.taskWakes.staleReason(core.db, taskId, plate);
}

/** A runner is its own instance: one per agent and host (docs/contract.md "Wakes"). */
export function runnerInstanceId(r: Pick<RunnerConfig, 'plate' | 'host'>): string {
  return `runner:${r.plate}:${r.host}`;
}

const dispatchers = new WeakMap<Core, WakeDispatcher>();

/** The CAPABILITY_STARTERS entry: one dispatcher per running core; its stop step kills running runners. */
export function startWakeDispatcher(core: Core): StopStep {
  const d = new WakeDispatcher(core);
  dispatchers.set(core, d);
  d.start();
  return () => d.stop();
}

export function dispatcherOf(core: Core): WakeDispatcher | undefined {
  return dispatchers.get(core);
}
