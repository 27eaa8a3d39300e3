import { immediate, type Db } from '../db/open.js';
import { wakeCause, wakeReasonCode } from './cause.js';
import { stmt } from '../db/stmt.js';
import { rowKey, seqId } from '../util/ids.js';
import { getAgentByPlate, listAgentsOfOwner } from '../agents/store.js';
import { handleOfPlate } from '../agents/handles.js';
import { roomIdsOfOwner, trustMode } from '../rooms/store.js';
import { hasScope } from '../../../shared/scopes.js';
import type { WakeStatus, UsageSums } from '../../../shared/api-types.js';
import type { z } from 'zod';
import type { wakeRecord, wakeTarget, wakeTrigger } from '../../../shared/schemas/wakes.js';

export type WakeTrigger = z.output<typeof wakeTrigger>;

/**
 * The `content` of a wake whose model input is its message's body, which the message keeps:
 * the dispatcher reads it when the wake starts (`contentsOf` in dispatcher.ts). A body is never
 * empty, so '' stands for nothing else. Rows written before keep a copy, read as they are.
 */
export const BODY_OF_MESSAGE = '';

export interface WakeInput {
  plate: string;
  roomId: string;
  trigger: WakeTrigger;
  taskId?: string;
  messageId?: string;
  /** The model input: the raw message body (BODY_OF_MESSAGE for a mention), or the task payload text. Nothing else is injected. */
  content: string;
  /** One wake per recipient per triggering event: a second enqueue with the same key is ignored. */
  eventKey: string;
  /** Whose action queued it: Trust is checked again against this owner when the wake starts. */
  actorOwnerId?: string;
  /**
   * The agent whose write queued it: a write made while that agent runs a wake chains on from
   * it (`chain_depth` one deeper, docs/wakes.md "Loop guard"). Absent for a human's write.
   */
  causePlate?: string;
  /**
   * Nothing can take the wake now (no runner, no live channel session: wakes/outcome.ts
   * `nothingCanTake`): queue it parked for pull at once, as the dispatcher's pass would a moment
   * later, in the caller's transaction instead of a write of its own.
   */
  pull?: boolean;
  /** An explicit depth (a retry keeps the failed wake's). */
  chainDepth?: number;
  retryOf?: string;
}

/**
 * The depth of a wake caused by a write of `plate`: one deeper than the deepest wake that agent
 * is running now (a runner's run or a pushed channel wake), 0 when it runs none: an agent
 * acting on its own, outside any wake, starts no chain.
 */
export function chainDepthCausedBy(db: Db, plate: string): number {
  return (stmt(db, `SELECT (${chainDepthCausedBySql('?')}) AS d`).get(plate) as { d: number }).d;
}

/** The same depth as SQL, for the agent `plateSql` (0 for NULL: a human starts no chain). */
export function chainDepthCausedBySql(plateSql: string): string {
  return `SELECT COALESCE(MAX(chain_depth) + 1, 0) FROM wakes INDEXED BY wakes_running WHERE status = 'running' AND plate = ${plateSql}`;
}

/**
 * The (seq, id) pair a lookup by wake id binds (`WHERE seq = ? AND id = ?`): a wake's id carries
 * its seq (`seqId`, migration 0015), except ids minted before, which `wake_legacy_ids` maps. An id
 * that names no wake gives a pair that matches no row.
 */
export function wakeKey(db: Db, id: string): [number, string] {
  const legacy = stmt(db, 'SELECT seq FROM wake_legacy_ids WHERE id = ?').get(id) as { seq: number } | undefined;
  return rowKey('wake', id, legacy?.seq);
}

/** The seq the next wake takes (nextWakeSeq) as SQL, for a caller that reads it with others in one statement. */
export const nextWakeSeqSql = 'SELECT COALESCE(MAX(seq), 0) + 1 FROM wakes';

/**
 * The seq the next wake takes: the largest plus one, as SQLite would give it (no wake is ever
 * deleted). Read in the write transaction that writes the wake, or plans it for the writes queued
 * behind its answer (db/open.ts `writeBehind`), which run before any later write.
 */
export function nextWakeSeq(db: Db): number {
  return (stmt(db, `SELECT (${nextWakeSeqSql}) AS seq`).get() as { seq: number }).seq;
}

/** The id of the wake holding `seq`, if one does. */
export function wakeIdAt(db: Db, seq: number): string | undefined {
  return (stmt(db, 'SELECT id FROM wakes WHERE seq = ?').get(seq) as { id: string } | undefined)?.id;
}

/** A wake's row, its id minted from its seq and its depth known, ready to be written (`writeWake`). */
export interface PlannedWake extends WakeInput {
  seq: number;
  id: string;
  chainDepth: number;
  createdAt: number;
}

/** The row of a wake taking `seq`: its id carries the seq (migration 0015), its depth follows the write that caused it. */
export function planWake(db: Db, w: WakeInput, seq: number, now: number): PlannedWake {
  const depth = w.chainDepth ?? (w.causePlate ? chainDepthCausedBy(db, w.causePlate) : 0);
  return { ...w, seq, id: mintWakeId(seq, now), chainDepth: depth, createdAt: now };
}

/** The id of a wake taking `seq`, minted at `now`. */
export function mintWakeId(seq: number, now: number): string {
  return seqId('wake', seq, now);
}

/** Writes a planned wake (inside the caller's transaction); false when its event already woke the agent. */
export function writeWake(db: Db, w: PlannedWake): boolean {
  const r = stmt(
    db,
    `INSERT OR IGNORE INTO wakes (seq, id, plate, room_id, trigger, task_id, message_id, content, event_key, actor_owner_id, created_at, chain_depth, retry_of, target, reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    w.seq,
    w.id,
    w.plate,
    w.roomId,
    w.trigger,
    w.taskId ?? null,
    w.messageId ?? null,
    w.content,
    w.eventKey,
    w.actorOwnerId ?? null,
    w.createdAt,
    w.chainDepth,
    w.retryOf ?? null,
    w.pull ? 'pull' : null,
    w.pull ? PULL_REASON : null,
  );
  return r.changes > 0;
}

/** Queues a wake (inside the caller's transaction). Returns its id, or undefined if this event already woke the agent. */
export function enqueueWake(db: Db, w: WakeInput): string | undefined {
  // The seq is read, then written: one write transaction, so no other writer takes it in between.
  if (!db.inTransaction) return immediate(db, () => enqueueWake(db, w));
  const planned = planWake(db, w, nextWakeSeq(db), Date.now());
  return writeWake(db, planned) ? planned.id : undefined;
}

/**
 * May an actor of `actorOwnerId` wake this agent in this room? It must hold INVOKE, not be
 * revoked, and an actor of another owner needs that owner's Trust on for the room, whatever
 * the room's mix of agents (docs/security.md, item 2). The dispatcher checks it all again
 * when the wake starts.
 */
export function mayWake(db: Db, roomId: string, plate: string, actorOwnerId: string): boolean {
  const a = getAgentByPlate(db, plate);
  if (!a || a.revoked_at !== null || !hasScope(a.scopes, 'INVOKE')) return false;
  if (a.owner_id === actorOwnerId) return true;
  return trustMode(db, roomId, a.owner_id) === 'trust_room';
}

/**
 * `held`: not started (loop guard or budget) until a human releases or drops it; `merged`:
 * coalesced into another wake's run (docs/wakes.md).
 */
/** A wake's status and the usage sums: the UI's own types (shared/api-types.ts). */
export type { WakeStatus, UsageSums };
export const WAKE_STATUSES = ['queued', 'running', 'handled', 'failed', 'held', 'merged'] as const satisfies readonly WakeStatus[];
/** Why a wake is held. */
export type HoldReason = 'loop_guard' | 'budget';
/** Where a wake went: a channel push, a spawned runner, or the inbox (pull). */
export type WakeTarget = z.output<typeof wakeTarget>;

export interface WakeRow {
  seq: number;
  id: string;
  plate: string;
  room_id: string;
  trigger: WakeTrigger;
  task_id: string | null;
  message_id: string | null;
  content: string;
  event_key: string;
  host: string | null;
  instance_id: string | null;
  status: WakeStatus;
  reason: string | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  target: WakeTarget | null;
  context_version: number | null;
  deadline_at: number | null;
  exit_code: number | null;
  stdout_tail: string | null;
  stderr_tail: string | null;
  tool_calls: number | null;
  flagged_no_tool_call: number;
  run_credential_id: string | null;
  actor_owner_id: string | null;
  chain_depth: number;
  released_at: number | null;
  released_by: string | null;
  merged_into: string | null;
  /** JSON array of the message ids a coalesced run answers. */
  message_ids: string | null;
  retry_of: string | null;
  usage_input_tokens: number | null;
  usage_output_tokens: number | null;
  usage_cache_read_tokens: number | null;
  usage_cost_usd: number | null;
  usage_model: string | null;
  /** Events of the transcript dropped for its bounds (transcript-log.ts). */
  transcript_dropped: number;
  last_output_at: number | null;
}

export function getWake(db: Db, id: string): WakeRow | undefined {
  return stmt(db, 'SELECT * FROM wakes WHERE seq = ? AND id = ?').get(...wakeKey(db, id)) as WakeRow | undefined;
}

/** The oldest queued wake of every (agent, room): the only ones that may start (FIFO). */
/**
 * The oldest queued wake of each (agent, room). Wakes parked for a pull client are left out
 * unless `includePull`: they only move when a channel session or runner appears, which the
 * dispatcher checks on its slow poll and on session and runner changes, so the per-message
 * pass does not grow with the inbox backlog.
 */
export function queueHeads(db: Db, includePull = false): WakeRow[] {
  if (includePull) {
    return stmt(
      db,
      `SELECT w.* FROM wakes w
       JOIN (SELECT MIN(seq) AS seq FROM wakes INDEXED BY wakes_queued WHERE status = 'queued' GROUP BY plate, room_id) h ON h.seq = w.seq
       ORDER BY w.seq`,
    ).all() as WakeRow[];
  }
  return stmt(
    db,
    `SELECT w.* FROM wakes w
     JOIN (SELECT MIN(seq) AS seq FROM wakes INDEXED BY wakes_dispatchable
           WHERE status = 'queued' AND target IS NOT 'pull' GROUP BY plate, room_id) h ON h.seq = w.seq
     ORDER BY w.seq`,
  ).all() as WakeRow[];
}

/** The oldest queued wake of an (agent, room) before `seq`, if any: FIFO holds across pull-parked wakes. */
export function olderQueued(db: Db, plate: string, roomId: string, seq: number): WakeRow | undefined {
  return stmt(db, "SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND seq < ? ORDER BY seq LIMIT 1").get(
    plate,
    roomId,
    seq,
  ) as WakeRow | undefined;
}

/** Is a wake already running on this queue key (instance, room, host)? */
export function keyBusy(db: Db, instanceId: string, roomId: string, host: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM wakes WHERE status = 'running' AND instance_id = ? AND room_id = ? AND host = ? LIMIT 1").get(
      instanceId,
      roomId,
      host,
    ) !== undefined
  );
}

/** Moves a queued wake to running on a key; false when it was not queued any more (never runs twice). */
export function markRunning(
  db: Db,
  id: string,
  run: { target: 'channel' | 'runner'; host: string; instanceId: string; contextVersion: number; deadlineAt?: number; runCredentialId?: string },
): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = 'running', target = ?, host = ?, instance_id = ?, context_version = ?, deadline_at = ?,
         run_credential_id = ?, reason = NULL, started_at = ?
       WHERE seq = ? AND id = ? AND status = 'queued'`,
    ).run(run.target, run.host, run.instanceId, run.contextVersion, run.deadlineAt ?? null, run.runCredentialId ?? null, Date.now(), ...wakeKey(db, id))
      .changes === 1
  );
}

/**
 * Notes that an agent's queued wakes in a room wait in the inbox for a pull client (no live
 * channel session, no runner): all of them at once, so none is looked at again per message.
 * Returns how many changed.
 */
/** Why a wake waits for pull (the wake log shows it). */
export const PULL_REASON = 'waiting in the inbox: no live channel session or runner for this agent';

export function markPull(db: Db, plate: string, roomId: string): number {
  return stmt(
    db,
    // Through the partial index of the not-yet-parked wakes: wakes_queued would walk every
    // wake already parked for this agent and room, a backlog that grows with each mention.
    `UPDATE wakes INDEXED BY wakes_dispatchable
       SET target = 'pull', reason = ?
     WHERE plate = ? AND room_id = ? AND status = 'queued' AND target IS NOT 'pull'`,
  ).run(PULL_REASON, plate, roomId).changes;
}

/** What a run cost, as the host CLI reported it (null where it does not say): the shared type. */
export type { WakeUsage } from '../../../shared/api-types.js';
import type { WakeUsage } from '../../../shared/api-types.js';

export interface RunOutcome {
  usage?: WakeUsage;
  exitCode?: number | null;
  stdoutTail?: string;
  stderrTail?: string;
  toolCalls?: number;
  flaggedNoToolCall?: boolean;
}

/** Ends a running wake; false when it had already ended. */
export function finishWake(db: Db, id: string, status: 'handled' | 'failed', reason: string | null, out: RunOutcome = {}): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = ?, reason = ?, ended_at = ?, exit_code = ?, stdout_tail = ?, stderr_tail = ?, tool_calls = ?,
         flagged_no_tool_call = ?, usage_input_tokens = ?, usage_output_tokens = ?, usage_cache_read_tokens = ?, usage_cost_usd = ?, usage_model = ?
       WHERE seq = ? AND id = ? AND status = 'running'`,
    ).run(
      status,
      reason,
      Date.now(),
      out.exitCode ?? null,
      out.stdoutTail ?? null,
      out.stderrTail ?? null,
      out.toolCalls ?? null,
      out.flaggedNoToolCall ? 1 : 0,
      out.usage?.input_tokens ?? null,
      out.usage?.output_tokens ?? null,
      out.usage?.cache_read_tokens ?? null,
      out.usage?.cost_usd ?? null,
      out.usage?.model ?? null,
      ...wakeKey(db, id),
    ).changes === 1
  );
}

/** Holds a queued wake (loop guard or budget); false when it was not queued any more. */
export function holdWake(db: Db, id: string, reason: HoldReason): boolean {
  return stmt(db, "UPDATE wakes SET status = 'held', reason = ?, target = NULL WHERE seq = ? AND id = ? AND status = 'queued'").run(reason, ...wakeKey(db, id)).changes === 1;
}

/**
 * A human's release: the held wake goes back to its queue (first again, its seq unchanged) and
 * starts past the loop guard and the budget; its depth stays, so its own next hop is held
 * again. Conditional: of two releases (or a release and a drop) exactly one wins.
 */
export function releaseHeld(db: Db, id: string, ownerId: string): boolean {
  return (
    stmt(db, "UPDATE wakes SET status = 'queued', reason = NULL, released_at = ?, released_by = ? WHERE seq = ? AND id = ? AND status = 'held'").run(
      Date.now(),
      ownerId,
      ...wakeKey(db, id),
    ).changes === 1
  );
}

/** A failed wake already retried: its retry is the agent's wake keyed `retry:<id>` (one per failed wake). */
export function wakeRetried(db: Db, plate: string, id: string): boolean {
  // The NOT GLOB term names the partial index wakes_event (unique keys of every event but a message's mention).
  return stmt(db, "SELECT 1 FROM wakes WHERE plate = ? AND event_key = ? AND event_key NOT GLOB 'msg:*'").get(plate, `retry:${id}`) !== undefined;
}

/** A human's drop: the held wake ends unrun (`failed`, reason `dropped`). Conditional like releaseHeld. */
export function dropHeld(db: Db, id: string, ownerId: string): boolean {
  return (
    stmt(db, "UPDATE wakes SET status = 'failed', reason = 'dropped', ended_at = ?, released_by = ? WHERE seq = ? AND id = ? AND status = 'held'").run(
      Date.now(),
      ownerId,
      ...wakeKey(db, id),
    ).changes === 1
  );
}

/** Wakes of an agent started since `since` (ms): the budget's window, read from the stored log. */
export function startedSince(db: Db, plate: string, since: number): number {
  return (stmt(db, 'SELECT COUNT(*) AS n FROM wakes INDEXED BY wakes_started_by_plate WHERE plate = ? AND started_at >= ? AND started_at IS NOT NULL').get(plate, since) as {
    n: number;
  }).n;
}

/**
 * Coalescing (docs/wakes.md): the queued mention wakes of an (agent, room) behind `lead` join
 * its run. Inside the caller's transaction with the lead's start, so a restart sees either all
 * of them queued or the lead running and the others merged: never one message run twice.
 * Returns the merged rows, oldest first.
 */
export function mergeQueuedMentions(db: Db, lead: WakeRow, refusal?: (w: WakeRow) => MergeRefusal | undefined): WakeRow[] {
  const rows = stmt(
    db,
    `SELECT * FROM wakes WHERE plate = ? AND room_id = ? AND status = 'queued' AND trigger = 'mention' AND seq > ? ORDER BY seq`,
  ).all(lead.plate, lead.room_id, lead.seq) as WakeRow[];
  const merge = stmt(db, "UPDATE wakes SET status = 'merged', merged_into = ?, reason = ?, ended_at = ? WHERE seq = ? AND id = ? AND status = 'queued'");
  const done: WakeRow[] = [];
  for (const r of rows) {
    // Each wake passes its own start-time checks (docs/security.md "third round"): one that fails
    // is failed or held on its own, with its own reason, and its text never joins the run.
    const no = refusal?.(r);
    if (no && 'fail' in no) dropQueued(db, r.id, no.fail);
    else if (no) holdWake(db, r.id, no.hold);
    else if (merge.run(lead.id, `merged into ${lead.id}`, Date.now(), r.seq, r.id).changes === 1) done.push(r);
  }
  return done;
}

/** Why a queued mention may not join a coalesced run: it fails (a recheck) or is held (loop guard, budget). */
export type MergeRefusal = { fail: string } | { hold: HoldReason };

/** The lead of a coalesced run: its content is every body in order, `message_ids` names them. */
export function setCoalescedContent(db: Db, id: string, content: string, messageIds: string[]): void {
  stmt(db, 'UPDATE wakes SET content = ?, message_ids = ? WHERE seq = ? AND id = ?').run(content, JSON.stringify(messageIds), ...wakeKey(db, id));
}

/** A queued wake that can never run (agent revoked, left the room, lost INVOKE). */
export function dropQueued(db: Db, id: string, reason: string): void {
  stmt(db, "UPDATE wakes SET status = 'failed', reason = ?, ended_at = ? WHERE seq = ? AND id = ? AND status = 'queued'").run(reason, Date.now(), ...wakeKey(db, id));
}

/**
 * What an act of this agent (from this instance) in the room handles: the channel wakes pushed to
 * the instance, and the agent's wakes parked for pull there. One read to look (it runs on every
 * act, and most find nothing: a read costs a fraction of an UPDATE that changes nothing), writes
 * only where there is something to handle; returns how many of each kind were handled. The dispatcher's
 * agentActed and a posted message (in its own transaction) both call it.
 */
export function handleWakesOnAct(db: Db, instanceId: string | undefined, plate: string, roomId: string): { channel: number; pull: number } {
  const waiting = wakesWaitingOnAct(db, instanceId, plate, roomId);
  return {
    channel: waiting.channel && instanceId ? handleChannelWakes(db, instanceId, roomId) : 0,
    pull: waiting.pull ? handlePullWakes(db, plate, roomId) : 0,
  };
}

/**
 * handleWakesOnAct for an act written in a transaction already open (a posted message): no read
 * first, since there an UPDATE that changes nothing costs what the read would, and the sender's
 * pull wakes are often waiting (it was mentioned). `channelInstance`: the posting session, only
 * when a wake may be pushed to it (channel.ts `channelInstanceOf`).
 */
export function handleWakesOnPost(db: Db, channelInstance: string | undefined, plate: string, roomId: string): { channel: number; pull: number } {
  return {
    channel: channelInstance ? handleChannelWakes(db, channelInstance, roomId) : 0,
    pull: handlePullWakes(db, plate, roomId),
  };
}

/** Whether this instance has channel wakes, and this agent pull wakes, in the room that its act handles: one read. */
function wakesWaitingOnAct(db: Db, instanceId: string | undefined, plate: string, roomId: string): { channel: boolean; pull: boolean } {
  const r = stmt(
    db,
    `SELECT EXISTS (SELECT 1 FROM wakes WHERE status = 'running' AND target = 'channel' AND instance_id = @instance AND room_id = @room) AS channel,
            EXISTS (SELECT 1 FROM wakes WHERE status = 'queued' AND target = 'pull' AND plate = @plate AND room_id = @room) AS pull`,
  ).get({ instance: instanceId ?? null, plate, room: roomId }) as { channel: number; pull: number };
  return { channel: r.channel === 1, pull: r.pull === 1 };
}

/** Channel wakes of this instance in this room: handled now that the instance acted there. */
function handleChannelWakes(db: Db, instanceId: string, roomId: string): number {
  return stmt(
    db,
    `UPDATE wakes SET status = 'handled', reason = NULL, ended_at = ?
     WHERE status = 'running' AND target = 'channel' AND instance_id = ? AND room_id = ?`,
  ).run(Date.now(), instanceId, roomId).changes;
}

/**
 * A pushed wake the session never took: back to queued, first in its queue again (its seq is
 * unchanged), for the runner or the inbox. Only from running on a channel, so it moves once.
 */
export function requeueChannelWake(db: Db, id: string, reason: string): boolean {
  return (
    stmt(
      db,
      `UPDATE wakes SET status = 'queued', target = NULL, host = NULL, instance_id = NULL, deadline_at = NULL, started_at = NULL, reason = ?
       WHERE seq = ? AND id = ? AND status = 'running' AND target = 'channel'`,
    ).run(reason, ...wakeKey(db, id)).changes === 1
  );
}

/** Queued pull wakes of an agent in a room: handled once the agent acted there. */
function handlePullWakes(db: Db, plate: string, roomId: string): number {
  return stmt(
    db,
    `UPDATE wakes SET status = 'handled', reason = 'handled by pull: the agent acted in the room', ended_at = ?
     WHERE status = 'queued' AND target = 'pull' AND plate = ? AND room_id = ?`,
  ).run(Date.now(), plate, roomId).changes;
}

/** Whether a wake something can take is queued for this agent in the room (the dispatcher has work there). */
export function dispatchableQueued(db: Db, plate: string, roomId: string): boolean {
  return (
    stmt(db, "SELECT 1 FROM wakes INDEXED BY wakes_dispatchable WHERE status = 'queued' AND target IS NOT 'pull' AND plate = ? AND room_id = ? LIMIT 1").get(
      plate,
      roomId,
    ) !== undefined
  );
}

/** When the agent's oldest running wake started, if it runs one (presence). */
export function runningWakeSince(db: Db, plate: string): number | undefined {
  const r = stmt(db, "SELECT MIN(COALESCE(started_at, created_at)) AS t FROM wakes INDEXED BY wakes_running WHERE status = 'running' AND plate = ?").get(plate) as { t: number | null };
  return r.t ?? undefined;
}

/**
 * A mention about a task (docs/review.md: a review's message): the message's queued wakes of
 * that agent carry the task, so their runs work in its worktree. Called in the same turn that
 * posted the message, before the dispatcher looks at it.
 */
export function attachTaskToMessageWakes(db: Db, messageId: string, plate: string, taskId: string): number {
  return stmt(db, "UPDATE wakes SET task_id = ? WHERE message_id = ? AND plate = ? AND status = 'queued' AND task_id IS NULL").run(taskId, messageId, plate).changes;
}

/** How many wakes about this task are running (a worktree is never removed under one). */
export function runningTaskWakes(db: Db, taskId: string): number {
  return (stmt(db, "SELECT count(*) AS n FROM wakes INDEXED BY wakes_running WHERE status = 'running' AND task_id = ?").get(taskId) as { n: number }).n;
}

export function runningWakes(db: Db): WakeRow[] {
  return stmt(db, "SELECT * FROM wakes INDEXED BY wakes_running WHERE status = 'running' ORDER BY seq").all() as WakeRow[];
}

/** Wakes a previous process left running: failed visibly, never run again. Returns them. */
export function failLeftRunning(db: Db, reason: string): WakeRow[] {
  return immediate(db, () => {
    const rows = runningWakes(db);
    for (const r of rows) finishWake(db, r.id, 'failed', reason);
    return rows;
  });
}

/** A wake as the human API shows it (shared/schemas/wakes.ts `wakeRecord`); wakes/present.ts adds the handle. */
export type WakeDto = z.output<typeof wakeRecord>;

function usageOf(r: WakeRow): WakeUsage | null {
  const u = {
    input_tokens: r.usage_input_tokens,
    output_tokens: r.usage_output_tokens,
    cache_read_tokens: r.usage_cache_read_tokens,
    cost_usd: r.usage_cost_usd,
    model: r.usage_model,
  };
  return Object.values(u).every((v) => v === null) ? null : u;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function wakeDto(r: WakeRow): WakeDto {
  return {
    wake_id: r.id,
    plate: r.plate,
    room: r.room_id,
    trigger: r.trigger,
    task_id: r.task_id,
    message_id: r.message_id,
    status: r.status,
    target: r.target,
    host: r.host,
    instance_id: r.instance_id,
    reason: r.reason,
    context_version: r.context_version,
    exit_code: r.exit_code,
    stdout_tail: r.stdout_tail,
    stderr_tail: r.stderr_tail,
    tool_calls: r.tool_calls,
    no_tool_call: r.flagged_no_tool_call === 1,
    chain_depth: r.chain_depth,
    retry_of: r.retry_of,
    merged_into: r.merged_into,
    message_ids: r.message_ids ? (JSON.parse(r.message_ids) as string[]) : null,
    usage: usageOf(r),
    created_at: iso(r.created_at)!,
    started_at: iso(r.started_at),
    ended_at: iso(r.ended_at),
    last_output_at: iso(r.last_output_at),
    cause: wakeCause({ status: r.status, reason: r.reason, exit_code: r.exit_code, stderr_tail: r.stderr_tail, stdout_tail: r.stdout_tail }),
    reason_code: wakeReasonCode(r),
  };
}

/**
 * A wake as a reader who is not the agent's owner sees it: no output tails (a runner's output is
 * its owner's to read, docs/security.md), and a cause that quotes none of them.
 */
export function withoutRunOutput<W extends Pick<WakeDto, 'status' | 'reason' | 'exit_code' | 'stdout_tail' | 'stderr_tail' | 'cause'>>(w: W): W {
  w.stdout_tail = w.stderr_tail = null;
  w.cause = wakeCause(w);
  return w;
}

/** The wake log, newest first, of a room or an agent (optionally one status). */
export function listWakes(
  db: Db,
  by: { roomId?: string; plate?: string; status?: WakeStatus; messageId?: string; taskId?: string; limit: number; beforeSeq?: number },
): WakeRow[] {
  const where: string[] = [];
  const args: unknown[] = [];
  const filter = (sql: string, v: unknown) => {
    where.push(sql);
    args.push(v);
  };
  if (by.roomId) filter('room_id = ?', by.roomId);
  if (by.plate) filter('plate = ?', by.plate);
  if (by.status) filter('status = ?', by.status);
  if (by.messageId) filter('message_id = ?', by.messageId);
  if (by.taskId) filter('task_id = ?', by.taskId);
  if (by.beforeSeq !== undefined) filter('seq < ?', by.beforeSeq);
  const sql = `SELECT * FROM wakes ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq DESC LIMIT ?`;
  return stmt(db, sql).all(...args, by.limit) as WakeRow[];
}

/**
 * Usage summed over the wakes an owner may see (docs/wakes.md "Usage"): wakes in the rooms
 * it is a member of, and its own agents' wakes anywhere. `wakes` counts runs that reported usage.
 */
export function usageSummary(db: Db, ownerId: string, f: { roomId?: string; plate?: string; since?: number }) {
  const visible = {
    rooms: JSON.stringify(roomIdsOfOwner(db, ownerId)),
    plates: JSON.stringify(listAgentsOfOwner(db, ownerId).map((a) => a.plate)),
  };
  const where = [
    '(w.usage_model IS NOT NULL OR w.usage_input_tokens IS NOT NULL OR w.usage_output_tokens IS NOT NULL OR w.usage_cost_usd IS NOT NULL)',
    '(w.room_id IN (SELECT value FROM json_each(@rooms)) OR w.plate IN (SELECT value FROM json_each(@plates)))',
  ];
  if (f.roomId) where.push('w.room_id = @room');
  if (f.plate) where.push('w.plate = @plate');
  if (f.since !== undefined) where.push('w.ended_at >= @since');
  const sums = `COUNT(*) AS wakes, COALESCE(SUM(w.usage_input_tokens), 0) AS input_tokens, COALESCE(SUM(w.usage_output_tokens), 0) AS output_tokens,
    COALESCE(SUM(w.usage_cache_read_tokens), 0) AS cache_read_tokens, COALESCE(SUM(w.usage_cost_usd), 0) AS cost_usd`;
  const args = { ...visible, room: f.roomId ?? null, plate: f.plate ?? null, since: f.since ?? null };
  const from = `FROM wakes w WHERE ${where.join(' AND ')}`;
  const totals = stmt(db, `SELECT ${sums} ${from}`).get(args) as UsageSums;
  const byAgent = (stmt(db, `SELECT w.plate AS plate, ${sums} ${from} GROUP BY w.plate ORDER BY w.plate`).all(args) as Array<UsageSums & { plate: string }>).map((r) => {
    // Each row names its agent by handle beside the plate (docs/wakes.md "Usage").
    const handle = handleOfPlate(db, r.plate);
    return handle === undefined ? r : { ...r, handle };
  });
  const byRoom = stmt(db, `SELECT w.room_id AS room, ${sums} ${from} GROUP BY w.room_id ORDER BY w.room_id`).all(args) as Array<UsageSums & { room: string }>;
  return { totals, by_agent: byAgent, by_room: byRoom };
}
