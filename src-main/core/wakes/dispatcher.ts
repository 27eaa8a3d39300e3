import type { Core, AgentActedEvent } from '../core.js';
import { immediate } from '../db/open.js';
import { handleOfPlate } from '../agents/handles.js';
import { agentHandle, createCredential, getAgentByPlate, pruneRevokedRunnerCredentials, revokeCredential, type AgentRow } from '../agents/store.js';
import { getRoom, touchRoom } from '../rooms/store.js';
import { mayRunCommands } from '../owners/store.js';
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
  markPull,
  markRunning,
  queueHeads,
  requeueChannelWake,
  olderQueued,
  runningWakes,
  type WakeRow,
} from './store.js';
import { channelAckMs, channelFallbackReason, channelSessionOf, channelTimeoutMs, markChannelDeaf, pushChannel } from './channel.js';
import { firstRunner, type RunnerConfig } from './runners.js';
import type { StopStep } from '../util/repeat.js';
import { holdReasonOf, mergeRefusal, recheckReason, taskStaleReason } from './admission.js';
import { envelopeMeta, envelopeOf } from './envelope.js';
import { mayWorkInWorktree, plainFolder } from './run-workspace.js';
import { RunnerRun, type RunOwner } from './runner-run.js';

export type { WakeEnvelope } from './envelope.js';
export { envelopeMeta } from './envelope.js';

export const RESTART_REASON = 'server restarted while the wake was running';
export const SHUTDOWN_REASON = 'server shut down while the wake was running';
export const RUNNERS_REVOKED_REASON =
  "runners of this agent's owner are disabled: the primary owner has not allowed this owner to run commands on this machine";
/** The safety net behind the event-driven kicks; also how often channel timeouts are checked. */
const POLL_MS = 1000;

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
  /** Only a started dispatcher runs passes; one never started (a core without its background work) still records acts and stops. */
  private dispatching = false;
  private scheduled = false;
  /** Set while the dispatcher emits a change that needs no pass of its own (see parked). */
  private quiet = false;
  /** The next pass also looks at wakes parked for pull clients. */
  private fullPending = false;
  private readonly runs = new Map<string, RunnerRun>();
  /** Pushed wakes not yet taken: the session and its tool-call count at the push. */
  private readonly pushes = new Map<string, { sessionId: string; toolCalls: number; at: number }>();
  /** Wakes a channel session did not take, with why: they go to the runner or the inbox, never pushed again. */
  private readonly noChannel = new Map<string, string>();
  /** Tool calls of closed sessions, by the run credential that opened them. */
  private readonly toolCallsByCredential = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private offSession?: () => void;

  /** What a run needs of this dispatcher (runner-run.ts). */
  private readonly runOwner: RunOwner;

  constructor(private readonly core: Core) {
    this.runOwner = this.makeRunOwner();
  }

  start(): void {
    const { core } = this;
    if (this.dispatching) return;
    this.dispatching = true;
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
      if (!mayRunCommands(this.core.db, run.ownerId)) run.kill(RUNNERS_REVOKED_REASON);
    }
  }

  /** Schedules one dispatch pass (coalesced); `full` also reconsiders wakes parked for pull. */
  kick(full = false): void {
    if (full) this.fullPending = true;
    if (!this.dispatching || this.stopped || this.scheduled) return;
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
    // The event names the agent by handle as every wake record does (wakes/present.ts); it carries no output.
    this.core.bus.emit({ type: 'wake.started', room: w.room_id, data: { wake_id: w.id, plate: w.plate, handle: handleOfPlate(this.core.db, w.plate) ?? w.plate, target } });
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
   * mention wakes behind it are merged into it in that same transaction, each only if it passes its
   * own start-time checks (admission.ts mergeRefusal; one that does not is failed or held on its
   * own), and `w` takes the joined content and message ids.
   */
  private begin(w: WakeRow, run: Parameters<typeof markRunning>[2], withReceipt = true, coalesce = false): boolean {
    const { db } = this.core;
    let receipt = false;
    const ok = immediate(db, () => {
      if (!markRunning(db, w.id, run)) return false;
      const merged = coalesce && w.trigger === 'mention' ? mergeQueuedMentions(db, w, (m) => mergeRefusal(this.core, m)) : [];
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

  /**
   * Begins a runner wake (running, with its run credential and, for a task wake, the running
   * receipt) and hands it to its run (runner-run.ts), which finds its workspace and spawns it.
   */
  private startRunner(w: WakeRow, a: AgentRow, runner: RunnerConfig): void {
    const { core } = this;
    const { db } = core;
    const version = this.contextVersion(w.room_id);
    const instanceId = runnerInstanceId(runner);
    // A run with no worktree to go to must have a folder of its own before it begins.
    if (!mayWorkInWorktree(core, w, a)) {
      const where = plainFolder(core, runner, a, w.room_id);
      if ('refused' in where) {
        if (this.begin(w, { target: 'runner', host: runner.host, instanceId, contextVersion: version }, false)) {
          finishWake(db, w.id, 'failed', where.refused);
          this.changed(w.room_id);
          this.kick();
        }
        return;
      }
    }
    const cred = createCredential(db, a.id, 'runner', 'runner');
    if (!this.begin(w, { target: 'runner', host: runner.host, instanceId, contextVersion: version, runCredentialId: cred.credentialId }, true, runner.coalesce)) {
      revokeCredential(db, cred.credentialId);
      return;
    }
    const run = new RunnerRun(this.runOwner, w, a, runner, cred, instanceId, version);
    this.runs.set(w.id, run);
    void run.run();
  }

  private makeRunOwner(): RunOwner {
    return {
      core: this.core,
      isStopped: () => this.stopped,
      changed: (roomId) => this.changed(roomId),
      kick: (full) => this.kick(full),
      started: (w) => this.started(w, 'runner'),
      leaseHolderGone: (instanceId, taskId) => this.leaseHolderGone(instanceId, taskId),
      takeFallback: (wakeId) => {
        const why = this.noChannel.get(wakeId);
        this.noChannel.delete(wakeId);
        return why;
      },
      takeToolCalls: async (run) => {
        // Closing the run's sessions folds their tool calls into the count (onSession) while the run is still listed.
        await this.core.sessions.closeWhere((s) => s.credentialId === run.credentialId);
        this.runs.delete(run.wakeId);
        const n = this.toolCallsByCredential.get(run.credentialId) ?? 0;
        this.toolCallsByCredential.delete(run.credentialId);
        return n;
      },
    };
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
    this.runs.get(w.id)?.kill(reason);
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
    for (const r of runs) r.kill(SHUTDOWN_REASON);
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
    await Promise.race([Promise.all(runs.map((r) => r.processDone())), new Promise((r) => setTimeout(r, 1500).unref())]);
    for (const r of runs) r.forceKill();
    this.runs.clear();
  }
}

/** A runner is its own instance: one per agent and host (docs/contract.md "Wakes"). */
export function runnerInstanceId(r: Pick<RunnerConfig, 'plate' | 'host'>): string {
  return `runner:${r.plate}:${r.host}`;
}

declare module '../core.js' {
  interface CoreServices {
    /** The wake dispatcher (built by assembleCore; started by startWakeDispatcher, so an in-memory core has one that never dispatches). */
    dispatcher: WakeDispatcher;
  }
}

/** The CAPABILITY_STARTERS entry: starts this core's dispatcher; its stop step kills running runners. */
export function startWakeDispatcher(core: Core): StopStep {
  const d = core.services.dispatcher;
  d.start();
  return () => d.stop();
}

/** This core's dispatcher: always there (docs/architecture.md "Services"), running or not. */
export function dispatcherOf(core: Core): WakeDispatcher {
  return core.services.dispatcher;
}
